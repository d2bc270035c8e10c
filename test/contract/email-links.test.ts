import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkFor, setCookies, signUp, sharedAuthServer, uniqueEmail, type AuthEnv } from '../helpers/accounts.js';
import { api, cliJson, createApp, type TestApp } from '../helpers/fixtures.js';

let env: AuthEnv;
let linkApp: TestApp;
let landingApp: TestApp;

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

beforeAll(async () => {
  env = await sharedAuthServer();
  linkApp = await createApp(env.server, { args: ['--verification-method', 'link', '--allowed-origin', 'http://localhost:3000', '--domain', 'links.example.test'] });
  landingApp = await createApp(env.server, { args: ['--verification-method', 'link', '--allowed-origin', 'http://localhost:3000', '--link-landing', 'on'] });
});
afterAll(async () => {
  await env?.stop();
});

/** Runs one write against the server's database (to age a link: the server's clock is real time). */
async function writeDatabase(text: string): Promise<void> {
  const url = env.server.databaseUrl;
  if (url.startsWith('sqlite:')) {
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(url.slice('sqlite:'.length));
    try {
      db.prepare(text).run();
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(text).finally(() => client.end());
}

async function freshLink(app: TestApp, redirect_url?: string): Promise<{ email: string; path: string }> {
  const email = uniqueEmail('link');
  expect((await signUp(env.server, app, { email, redirect_url })).status).toBe(200);
  const link = await linkFor(env.sink, email);
  return { email, path: link.pathname + link.search };
}

describe('4.1 an invalid, used or expired link: 400, an HTML page for a person, {detail} for others', () => {
  it('a used link: a page saying so with a link back to the stored redirect target; an API client gets {detail}', async () => {
    const { path } = await freshLink(linkApp, 'http://localhost:3000/welcome');
    expect((await api(env.server, 'GET', path)).status).toBe(302);
    const page = await api(env.server, 'GET', path, { headers: HTML });
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.body).toMatch(/already used/);
    expect(page.body).toContain('href="http://localhost:3000/welcome"');
    expect(page.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    const json = await api(env.server, 'GET', path, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(400);
    expect(json.body).toEqual({ detail: expect.stringMatching(/already used/), code: expect.any(String) });
  });

  it('an expired link: a page saying it expired, back to the app fallback (its verified domain)', async () => {
    const { email, path } = await freshLink(linkApp);
    await writeDatabase(`UPDATE email_challenges SET link_expires_at = '2000-01-01T00:00:00.000Z' WHERE email_normalized = '${email}'`);
    const page = await api(env.server, 'GET', path, { headers: HTML });
    expect(page.status).toBe(400);
    expect(page.body).toMatch(/expired/);
    expect(page.body).toContain('href="https://links.example.test/"');
    expect((await api(env.server, 'GET', path)).body).toEqual({ detail: expect.stringMatching(/expired/), code: expect.any(String) });
  });

  it('an unknown or missing token: a page saying it is not valid; the Host of a verified domain gives the way back', async () => {
    const unknown = await api(env.server, 'GET', '/v1/email/verify?token=el_nothing', { headers: { ...HTML, host: 'links.example.test' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatch(/not valid/);
    expect(unknown.body).toContain('href="https://links.example.test/"');
    const missing = await api(env.server, 'GET', '/v1/email/verify', { headers: HTML });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatch(/not valid/);
    expect(missing.body).not.toMatch(/href=/);
    expect((await api(env.server, 'GET', '/v1/email/verify')).body).toEqual({ detail: expect.any(String), code: expect.any(String) });
  });

  it('every other error stays {detail} for a client that accepts HTML', async () => {
    for (const [method, path] of [['GET', '/v1/me'], ['GET', '/v1/nothing'], ['POST', '/v1/signins']]) {
      const res = await api(env.server, method, path, { headers: HTML });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(Object.keys(res.body), path).toEqual(['detail', 'code']);
    }
  });
});

describe('1 --link-landing on: opening a link consumes nothing, the page button POSTs the token', () => {
  it('app create shows link_landing false by default; app update turns it on', async () => {
    const plain = await createApp(env.server);
    expect(plain).toMatchObject({ link_landing: false });
    const updated = await cliJson<{ link_landing: boolean }>(env.server, ['app', 'update', plain.app_id, '--link-landing', 'on', '--json']);
    expect(updated.link_landing).toBe(true);
    const bad = await env.server.cli(['app', 'update', plain.app_id, '--link-landing', 'maybe']);
    expect(bad.code).not.toBe(0);
  });

  it('GET answers a one-button page however often it is opened (a scanner); the POST signs in once with 303', async () => {
    const { path } = await freshLink(landingApp, 'http://localhost:3000/home');
    for (let i = 0; i < 2; i++) {
      const page = await api(env.server, 'GET', path);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.getSetCookie()).toEqual([]);
      expect(page.body).toMatch(/<form method="post" action="\/v1\/email\/verify">/);
    }
    const token = new URLSearchParams(path.split('?')[1]).get('token')!;
    const form = `token=${encodeURIComponent(token)}`;
    const post = await api(env.server, 'POST', '/v1/email/verify', { rawBody: form, headers: { 'content-type': 'application/x-www-form-urlencoded', origin: env.server.url } });
    expect(post.status).toBe(303);
    expect(post.headers.get('location')).toBe('http://localhost:3000/home');
    const cookies = setCookies(post.headers);
    const me = await api(env.server, 'GET', '/v1/me', { publishableKey: landingApp.publishable_key, headers: { cookie: `__session=${cookies.__session.value}` } });
    expect(me.body).toMatchObject({ email_verified: true });
    const again = await api(env.server, 'POST', '/v1/email/verify', { rawBody: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(again.status).toBe(400);
    expect((await api(env.server, 'GET', path, { headers: HTML })).body).toMatch(/already used/);
  });

  it('a POST from a cross-site page (another Origin, or null) is 403 and the link stays usable', async () => {
    const { path } = await freshLink(landingApp);
    const token = new URLSearchParams(path.split('?')[1]).get('token')!;
    for (const origin of ['https://evil.example.com', 'null']) {
      const res = await api(env.server, 'POST', '/v1/email/verify', { body: { token }, headers: { origin } });
      expect(res.status).toBe(403);
      expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    }
    const allowed = await api(env.server, 'POST', '/v1/email/verify', { body: { token }, headers: { origin: 'http://localhost:3000' } });
    expect(allowed.status).toBe(303);
  });

  it('a null Origin passes only when the browser itself says the form is same-origin (Sec-Fetch-Site)', async () => {
    const { path } = await freshLink(landingApp);
    const token = new URLSearchParams(path.split('?')[1]).get('token')!;
    const crossSite = await api(env.server, 'POST', '/v1/email/verify', { body: { token }, headers: { origin: 'null', 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    const sameOrigin = await api(env.server, 'POST', '/v1/email/verify', { body: { token }, headers: { origin: 'null', 'sec-fetch-site': 'same-origin' } });
    expect(sameOrigin.status).toBe(303);
  });

  it("another app's publishable key on the POST is 400 and consumes nothing", async () => {
    const { path } = await freshLink(landingApp);
    const token = new URLSearchParams(path.split('?')[1]).get('token')!;
    const foreign = await api(env.server, 'POST', '/v1/email/verify', { body: { token }, publishableKey: linkApp.publishable_key });
    expect(foreign.status).toBe(400);
    expect((await api(env.server, 'POST', '/v1/email/verify', { body: { token } })).status).toBe(303);
  });
});

describe('review: a link sets the cookies of its own app', () => {
  it("a link opened on another app's domain sets no Domain= of that app's cookie_domain", async () => {
    await createApp(env.server, { args: ['--domain', 'squat.elinks.example.test', '--cookie-domain', 'elinks.example.test'] });
    const victim = await createApp(env.server, { args: ['--verification-method', 'link', '--allowed-origin', 'http://localhost:3000'] });
    const { path } = await freshLink(victim, 'http://localhost:3000/welcome');
    const opened = await api(env.server, 'GET', path, { headers: { host: 'squat.elinks.example.test' } });
    expect(opened.status).toBe(302);
    const cookies = setCookies(opened.headers);
    expect(cookies.__session!.value).toBeTruthy();
    expect(cookies.__session!.attributes.domain).toBeUndefined();
  });
});
