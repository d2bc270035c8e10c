import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { sessionUser } from '../helpers/objects.js';
import { sharedServer, type TestServer } from '../helpers/server.js';

// Issue 39, "people, not programs": routes a person reaches by navigating answer their errors as a page
// with a way back to the app when the browser asks for HTML, and a cookie of another app says why it fails.

let server: TestServer;
let first: TestApp;
let second: TestApp;
const ORIGIN = 'http://localhost:3000';
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

beforeAll(async () => {
  server = await sharedServer();
  const tenantId = await createTenant(server);
  first = await createApp(server, { tenantId, name: 'First', args: ['--allowed-origin', ORIGIN] });
  second = await createApp(server, { tenantId, name: 'Second', args: ['--allowed-origin', 'http://localhost:3001'] });
});

afterAll(async () => {
  await server?.stop();
});

describe('39 pages: navigations that fail', () => {
  const bridge = (app: TestApp) => `/v1/sso/bridge?publishable_key=${app.publishable_key}&return_to=${encodeURIComponent(`${ORIGIN}/after`)}`;

  it('39 pages: the SSO bridge opened without a session answers a page that says so, with a way back to the app', async () => {
    const res = await api(server, 'GET', bridge(first), { headers: HTML });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.body).toContain('You are not signed in');
    expect(res.body).toContain(`href="${ORIGIN}/"`);
    expect(res.body).not.toContain('{"detail"');
  });

  it('39 pages: an API client still gets {detail} from the same route', async () => {
    const res = await api(server, 'GET', bridge(first), { headers: { accept: 'application/json' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.stringContaining('not authenticated'), code: expect.any(String) });
  });

  it('39 pages: an unknown app on the bridge is a page without a link anywhere', async () => {
    const res = await api(server, 'GET', `/v1/sso/bridge?publishable_key=pk_unknownunknownunknown123&return_to=${encodeURIComponent(ORIGIN)}`, { headers: HTML });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.body).not.toContain('href=');
  });

  it('39 pages: an OAuth callback with no flow behind it is a page, not JSON', async () => {
    const res = await api(server, 'GET', '/v1/oauth/google/callback?state=nothing&code=x', { headers: HTML });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.body).toContain('<h1>');
  });

  it('39 pages: a request body of detail is escaped on the page', async () => {
    const res = await api(server, 'GET', `/v1/sso/bridge?publishable_key=${first.publishable_key}`, { headers: HTML });
    expect(res.status).toBe(400);
    expect(res.body).not.toMatch(/<script/i);
  });
});

describe('39 pages: two apps on one host name', () => {
  it("39 cookies: another app's __session answers 401 naming the shared cookie jar", async () => {
    const { token } = await sessionUser(server, first);
    const res = await api(server, 'GET', '/v1/me', { publishableKey: second.publishable_key, headers: { cookie: `__session=${token}`, origin: 'http://localhost:3001' } });
    expect(res.status).toBe(401);
    expect(res.body.detail).toBe('the session cookie belongs to another application (two apps on one host name share cookies; see docs/browser.md)');
    const own = await api(server, 'GET', '/v1/me', { publishableKey: first.publishable_key, headers: { cookie: `__session=${token}`, origin: ORIGIN } });
    expect(own.status).toBe(200);
  });

  it('39 cookies: a Bearer token of another app stays a plain invalid token', async () => {
    const { token } = await sessionUser(server, first);
    const res = await api(server, 'GET', '/v1/me', { publishableKey: second.publishable_key, bearer: token });
    expect(res.status).toBe(401);
    expect(res.body.detail).toBe('invalid or expired access token');
  });
});
