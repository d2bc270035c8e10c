import { createVerifier, expressAuth, type AccessClaims } from '@gatehouse/server';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { ADMIN_TOKEN } from '../helpers/console.js';
import { api, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { freePort } from '../helpers/server.js';
import { clientBundle } from './client-bundle.js';
import { findChromium, skipReason } from './harness.js';

// Issue 48, "your own API": the two deployments of docs/browser.md, each on three host names, in Chromium.
//   pages        http://shop.localhost:<web>        (the tenant's site)
//   Gatehouse    http://auth.shop.localhost:<gh>    (the app's verified domain)
//   own API      http://api.shop.localhost:<own>    (a node:http server on @gatehouse/server)
// Cookies: the app's cookie_domain is shop.localhost, so __session reaches the own API; __refresh does not.
// Bearer: an app without it; the page sends auth.getToken() as Authorization: Bearer.
// *.localhost names are loopback (RFC 6761); --host-resolver-rules maps them to 127.0.0.1 all the same.

const reason = skipReason();
let env: AuthEnv;
let cookieApp: TestApp;
let bearerApp: TestApp;
let browser: Browser;
let web: Server;
let own: Server;
let pages: string;
let gatehouse: string;
let ownApi: string;
/** What the own API received, per request: the cookie names it saw and whether a Bearer came. */
const received: { cookies: string[]; bearer: boolean }[] = [];

// The page loads the client as a module and hands it to the test (a dynamic import() in page.evaluate would be Vite's).
const PAGE = `<!doctype html><title>Shop</title><h1>Shop</h1>
<script type="module">import { createClient } from '/client/index.js'; window.createClient = createClient;</script>`;

function pageServer(bundle: Map<string, string>): Server {
  return createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const code = bundle.get(path);
    if (code) return response.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
    response.writeHead(path === '/' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  });
}

/** The tenant's own API: CORS for the pages' origin (credentials and Authorization), /cookie/me and /bearer/me behind expressAuth. */
function ownApiServer(): Server {
  const guards = new Map([
    ['/cookie/me', expressAuth(createVerifier({ baseUrl: env.server.url, appId: cookieApp.app_id }))],
    ['/bearer/me', expressAuth(createVerifier({ baseUrl: env.server.url, appId: bearerApp.app_id }))],
  ]);
  return createServer((request: IncomingMessage & { auth?: AccessClaims }, response: ServerResponse) => {
    response.setHeader('access-control-allow-origin', pages);
    response.setHeader('access-control-allow-credentials', 'true');
    if (request.method === 'OPTIONS') {
      response.setHeader('access-control-allow-headers', 'authorization');
      return response.writeHead(204).end();
    }
    const cookies = (request.headers.cookie ?? '').split(';').map((part) => part.trim().split('=')[0]!).filter(Boolean);
    received.push({ cookies, bearer: /^Bearer /.test(request.headers.authorization ?? '') });
    const guard = guards.get(request.url ?? '');
    if (!guard) return response.writeHead(404).end();
    guard(request, response, () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ user: request.auth!.sub })));
  });
}

const listen = (server: Server) => new Promise<number>((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));

beforeAll(async () => {
  if (reason) return;
  env = await startAuthServer({ ADMIN_TOKEN });
  const webPort = await freePort();
  pages = `http://shop.localhost:${webPort}`;
  gatehouse = `http://auth.shop.localhost:${env.server.port}`;
  const tenantId = await createTenant(env.server, 'Shop');
  cookieApp = await createApp(env.server, {
    tenantId,
    name: 'Cookies',
    args: ['--domain', 'auth.shop.localhost', '--cookie-domain', 'shop.localhost', '--allowed-origin', pages],
  });
  bearerApp = await createApp(env.server, { tenantId, name: 'Bearer', args: ['--allowed-origin', pages] });
  web = pageServer(await clientBundle());
  await new Promise<void>((done) => web.listen(webPort, '127.0.0.1', () => done()));
  own = ownApiServer();
  ownApi = `http://api.shop.localhost:${await listen(own)}`;
  browser = await chromium.launch({
    executablePath: findChromium(),
    args: ['--host-resolver-rules=MAP *.localhost 127.0.0.1, MAP localhost 127.0.0.1', '--disable-dev-shm-usage'],
  });
});

afterAll(async () => {
  await browser?.close().catch(() => {});
  await new Promise<void>((done) => (web ? web.close(() => done()) : done()));
  await new Promise<void>((done) => (own ? own.close(() => done()) : done()));
  await env?.stop();
});

/** A page of the shop signed in by `@gatehouse/client` (cookie mode, the browser default) with the app's key. */
async function signedIn(app: TestApp): Promise<{ page: Page; userId: string; cookies: () => Promise<{ name: string; domain: string }[]> }> {
  const user = await verifiedUser(env, app);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${pages}/`);
  await page.waitForFunction(() => 'createClient' in window);
  const signedInAs = await page.evaluate(
    async ({ url, key, email, password }) => {
      const { createClient } = window as unknown as { createClient: (options: object) => any };
      const client = createClient({ url, publishableKey: key });
      (window as unknown as { gatehouse: unknown }).gatehouse = client;
      const session = await client.auth.signInWithPassword({ email, password });
      return session.user_id as string;
    },
    { url: gatehouse, key: app.publishable_key, email: user.email, password: user.password },
  );
  expect(signedInAs).toBe(user.userId);
  return { page, userId: user.userId, cookies: () => context.cookies() };
}

describe.skipIf(reason)(`browser: the tenant's own API on a third host name${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('48 cookie mode with cookie_domain: __session (Domain=shop.localhost) reaches the own API, __refresh stays on Gatehouse\'s host', async () => {
    const { page, userId, cookies } = await signedIn(cookieApp);
    const jar = await cookies();
    expect(jar.find((c) => c.name === '__session')?.domain).toBe('.shop.localhost');
    expect(jar.find((c) => c.name === '__refresh')?.domain).toBe('auth.shop.localhost');
    received.length = 0;
    const answer = await page.evaluate(async (url) => {
      const response = await fetch(`${url}/cookie/me`, { credentials: 'include' });
      return { status: response.status, body: await response.json() };
    }, ownApi);
    expect(answer).toEqual({ status: 200, body: { user: userId } });
    expect(received).toEqual([{ cookies: ['__session'], bearer: false }]);
    // Gatehouse itself still takes the cookie, and its refresh renews __session under the same Domain.
    const refreshed = await page.evaluate(async () => {
      const client = (window as unknown as { gatehouse: { auth: { refreshSession(): Promise<unknown>; getUser(): Promise<{ user_id: string }> } } }).gatehouse;
      await client.auth.refreshSession();
      return (await client.auth.getUser()).user_id;
    });
    expect(refreshed).toBe(userId);
    expect((await cookies()).filter((c) => c.name === '__session').map((c) => c.domain)).toEqual(['.shop.localhost']);
    // Signing out clears it: the own API refuses the next request.
    const after = await page.evaluate(async (url) => {
      await (window as unknown as { gatehouse: { auth: { signOut(): Promise<unknown> } } }).gatehouse.auth.signOut();
      return (await fetch(`${url}/cookie/me`, { credentials: 'include' })).status;
    }, ownApi);
    expect(after).toBe(401);
    expect((await cookies()).map((c) => c.name)).toEqual([]);
  });

  it('48 Bearer: without cookie_domain the own API gets no cookie, and auth.getToken() as Authorization: Bearer authenticates', async () => {
    const { page, userId, cookies } = await signedIn(bearerApp);
    expect((await cookies()).find((c) => c.name === '__session')?.domain).toBe('auth.shop.localhost');
    received.length = 0;
    const answers = await page.evaluate(async (url) => {
      const client = (window as unknown as { gatehouse: { auth: { getToken(): Promise<string | null> } } }).gatehouse;
      const withCookie = await fetch(`${url}/bearer/me`, { credentials: 'include' });
      const token = await client.auth.getToken();
      const withBearer = await fetch(`${url}/bearer/me`, { headers: { authorization: `Bearer ${token}` } });
      return [withCookie.status, withBearer.status, await withBearer.json()];
    }, ownApi);
    expect(answers).toEqual([401, 200, { user: userId }]);
    expect(received).toEqual([
      { cookies: [], bearer: false },
      { cookies: [], bearer: true },
    ]);
  });

  it('48 cookie_domain is checked: a parent of the verified domain, two labels at least; absent, the app keeps host-only cookies', async () => {
    const refused = async (args: string[]) => createApp(env.server, { args }).then(() => 'created', (error: Error) => error.message);
    expect(await refused(['--cookie-domain', 'shop.localhost'])).toMatch(/needs a verified domain/);
    expect(await refused(['--domain', 'auth.shop.localhost', '--cookie-domain', 'other.localhost'])).toMatch(/parent domain/);
    expect(await refused(['--domain', 'auth.shop2.localhost', '--cookie-domain', 'localhost'])).toMatch(/two labels/);
    const shown = await api(env.server, 'GET', `/v1/apps/${cookieApp.app_id}`, { bearer: ADMIN_TOKEN });
    expect(shown.body.cookie_domain).toBe('shop.localhost');
  });
});
