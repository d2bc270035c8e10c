import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  server = await startServer();
  app = await createApp(server, { args: ['--allowed-origin', 'https://shop.example.test'] });
  other = await createApp(server, { args: ['--allowed-origin', 'https://other.example.test'] });
});
afterAll(async () => {
  await server?.stop();
});

describe('CORS follows the apps allow-lists', () => {
  it('a preflight from an allowed origin is answered with that origin and credentials', async () => {
    const res = await api(server, 'OPTIONS', '/v1/signins', {
      headers: { origin: 'https://shop.example.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-publishable-key' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.test');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/x-publishable-key/);
  });

  it('5 a preflight from an origin on no allow-list is 403 {detail} without CORS headers', async () => {
    const res = await api(server, 'OPTIONS', '/v1/signins', { headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' } });
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/allow-list/);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("a request is checked against its own app's list", async () => {
    const own = await api(server, 'GET', '/v1/health', { publishableKey: app.publishable_key, headers: { origin: 'https://shop.example.test' } });
    expect(own.headers.get('access-control-allow-origin')).toBe('https://shop.example.test');
    expect(own.headers.get('access-control-expose-headers')).toMatch(/x-request-id/);
    const foreign = await api(server, 'GET', '/v1/health', { publishableKey: other.publishable_key, headers: { origin: 'https://shop.example.test' } });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('5 CORS headers go on every answer to an allow-listed origin, errors included', () => {
  const origin = 'https://shop.example.test';
  const readable = (res: { headers: Headers }) => {
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/x-request-id/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  };

  it('health without any key', async () => {
    const res = await api(server, 'GET', '/v1/health', { headers: { origin } });
    expect(res.status).toBe(200);
    readable(res);
  });

  it('401 from the guard when the publishable key is missing or unknown', async () => {
    const missing = await api(server, 'GET', '/v1/me', { headers: { origin } });
    expect(missing.status).toBe(401);
    expect(missing.body.detail).toBeTruthy();
    readable(missing);
    const unknown = await api(server, 'GET', '/v1/me', { publishableKey: 'pk_unknownunknownunknown00', headers: { origin } });
    expect(unknown.status).toBe(401);
    readable(unknown);
  });

  it('401 from the session guard with a valid key', async () => {
    const res = await api(server, 'GET', '/v1/me', { publishableKey: app.publishable_key, headers: { origin } });
    expect(res.status).toBe(401);
    readable(res);
  });

  it('403 from a guard: the publishable key on a secret route', async () => {
    const res = await api(server, 'GET', '/v1/users', { bearer: app.publishable_key, headers: { origin } });
    expect(res.status).toBe(403);
    readable(res);
  });

  it('404 for an unknown route and 400 for a bad body', async () => {
    const missing = await api(server, 'GET', '/v1/nothing-here', { headers: { origin } });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBeTruthy();
    readable(missing);
    const bad = await api(server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, headers: { origin }, body: { email: 'not an email' } });
    expect(bad.status).toBe(400);
    readable(bad);
  });

  it('an origin on no list gets no CORS headers on errors either', async () => {
    const res = await api(server, 'GET', '/v1/me', { headers: { origin: 'https://evil.example.com' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('5 CORS on 429', () => {
  it('a rate-limited answer carries the CORS headers and exposes Retry-After', async () => {
    const limited = await startServer({ RATE_LIMITS: 'challenge_ip=1/60' });
    try {
      const limitedApp = await createApp(limited, { args: ['--allowed-origin', 'https://shop.example.test'] });
      const headers = { origin: 'https://shop.example.test' };
      await api(limited, 'POST', '/v1/challenges', { publishableKey: limitedApp.publishable_key, headers });
      const res = await api(limited, 'POST', '/v1/challenges', { publishableKey: limitedApp.publishable_key, headers });
      expect(res.status).toBe(429);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.test');
      expect(res.headers.get('access-control-expose-headers')).toMatch(/retry-after/);
      expect(res.headers.get('retry-after')).toBeTruthy();
    } finally {
      await limited.stop();
    }
  });
});
