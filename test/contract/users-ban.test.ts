import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, startAuthServer, uniqueEmail, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Issue 49: PATCH /v1/users/{id} {banned}. A ban ends the user's sessions at once (every node reads the
// session row on each request) and refuses every sign-in and refresh with 403 user_banned; unbanning lets
// the user sign in again, and the ended sessions stay ended.

let env: AuthEnv;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  env = await startAuthServer({ RATE_LIMITS: '' });
  app = await createApp(env.server);
  other = await createApp(env.server, { tenantId: app.tenant_id });
});
afterAll(async () => {
  await env?.stop();
});

const secret = (method: string, path: string, body?: unknown, key = app.secret_key) => api(env.server, method, path, { bearer: key, body });
const ban = (userId: string, banned: boolean, key = app.secret_key) => secret('PATCH', `/v1/users/${userId}`, { banned }, key);
const me = (token: string) => api(env.server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token });
const signIn = (body: unknown) => api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body });
const refresh = (refresh_token: string) => api(env.server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body: { refresh_token } });

function expectBanned(res: { status: number; body: any }) {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body).toMatchObject({ code: 'user_banned', detail: 'this user is banned from the application' });
}

describe('banning a user', () => {
  it('ends every live session at once: access tokens refused, refresh refused as banned', async () => {
    const user = await verifiedUser(env, app);
    const second = await signIn({ email: user.email, password: user.password });
    expect(second.status).toBe(200);
    expect((await me(user.tokens.access_token)).status).toBe(200);
    const banned = await ban(user.userId, true);
    expect(banned.status).toBe(200);
    expect(banned.body).toMatchObject({ id: user.userId, banned: true });
    expect((await me(user.tokens.access_token)).status).toBe(401);
    expect((await me(second.body.access_token)).status).toBe(401);
    expectBanned(await refresh(user.tokens.refresh_token));
    expectBanned(await refresh(second.body.refresh_token));
    const sessions = await secret('GET', `/v1/users/${user.userId}/export`);
    expect(sessions.body.sessions.every((s: { revoked_at: string | null }) => s.revoked_at !== null)).toBe(true);
  });

  it('refuses every way in with user_banned: password, emailed code, sign-in token', async () => {
    const user = await verifiedUser(env, app);
    await ban(user.userId, true);
    expectBanned(await signIn({ email: user.email, password: user.password }));
    // The wrong password is still only invalid credentials: the ban is told to the password's holder alone.
    expect((await signIn({ email: user.email, password: 'not the password' })).status).toBe(401);
    expect((await signIn({ email: user.email })).status).toBe(200);
    const code = await codeFor(env.sink, user.email, 2);
    expectBanned(await api(env.server, 'POST', '/v1/verify-code', { publishableKey: app.publishable_key, body: { email: user.email, code } }));
    expectBanned(await secret('POST', '/v1/sign_in_tokens', { user_id: user.userId }));
  });

  it('unbanning restores sign-in, not the sessions', async () => {
    const user = await verifiedUser(env, app);
    await ban(user.userId, true);
    const unbanned = await ban(user.userId, false);
    expect(unbanned.body).toMatchObject({ banned: false });
    expect((await me(user.tokens.access_token)).status).toBe(401);
    expect((await refresh(user.tokens.refresh_token)).status).toBe(401);
    const again = await signIn({ email: user.email, password: user.password });
    expect(again.status).toBe(200);
    expect((await me(again.body.access_token)).status).toBe(200);
    expect((await refresh(again.body.refresh_token)).status).toBe(200);
  });

  it("another app's secret key cannot ban the user: 404, the session lives on", async () => {
    const user = await verifiedUser(env, app);
    expect((await ban(user.userId, true, other.secret_key)).status).toBe(404);
    expect((await me(user.tokens.access_token)).status).toBe(200);
    expect((await secret('GET', `/v1/users/${user.userId}`)).body.banned).toBe(false);
  });

  it('a ban of a user who never signed in refuses their first sign-in', async () => {
    const email = uniqueEmail('fresh');
    const created = await secret('POST', '/v1/users', { email, password: 'correct horse battery' });
    await ban(created.body.id, true);
    expectBanned(await signIn({ email, password: 'correct horse battery' }));
  });
});

describe.skipIf(TEST_DB !== 'postgres' || !process.env.TEST_REDIS_URL)('a ban on two nodes on one PostgreSQL and one Redis', () => {
  let a: TestServer;
  let b: TestServer;
  let shop: TestApp;
  const shared = { RATE_LIMITS: '', PUBLIC_BASE_URL: 'https://auth.example.test' };

  beforeAll(async () => {
    a = await startServer(shared);
    b = await startServer({ ...shared, DATABASE_URL: a.databaseUrl, MASTER_KEY: a.env.MASTER_KEY });
    shop = await createApp(a);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('a ban through one node ends the live session on the other at once; sign-in there is refused', async () => {
    const email = `nodes-ban-${Date.now()}@example.com`;
    const created = await api(a, 'POST', '/v1/users', { bearer: shop.secret_key, body: { email, password: 'correct horse battery' } });
    const tokens = (await api(b, 'POST', '/v1/signins', { publishableKey: shop.publishable_key, body: { email, password: 'correct horse battery' } })).body;
    // The session is live on b (and b's caches have seen its token).
    expect((await api(b, 'GET', '/v1/me', { publishableKey: shop.publishable_key, bearer: tokens.access_token })).status).toBe(200);
    expect((await api(a, 'PATCH', `/v1/users/${created.body.id}`, { bearer: shop.secret_key, body: { banned: true } })).status).toBe(200);
    expect((await api(b, 'GET', '/v1/me', { publishableKey: shop.publishable_key, bearer: tokens.access_token })).status).toBe(401);
    const refreshed = await api(b, 'POST', '/v1/tokens/session', { publishableKey: shop.publishable_key, body: { refresh_token: tokens.refresh_token } });
    expect(refreshed.body).toMatchObject({ code: 'user_banned' });
    const again = await api(b, 'POST', '/v1/signins', { publishableKey: shop.publishable_key, body: { email, password: 'correct horse battery' } });
    expect(again.status).toBe(403);
    expect(again.body).toMatchObject({ code: 'user_banned' });
  });
});
