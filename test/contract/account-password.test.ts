import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createDeps } from '../../src/deps.js';
import { createLogger } from '../../src/observability/logger.js';
import { startAuthServer, uniqueEmail, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';

// docs/account.md: POST /v1/me/password, with the CSRF rule of section 5 and the sign-in windows
// of section 8.

let env: AuthEnv;
let app: TestApp;
let other: TestApp;
const ORIGIN = 'http://localhost:3000';

beforeAll(async () => {
  // A known MASTER_KEY (on SQLite too), so a test can sign an access token the way the server does.
  env = await startAuthServer({ MASTER_KEY: randomBytes(32).toString('base64') });
  app = await createApp(env.server, { args: ['--allowed-origin', ORIGIN] });
  other = await createApp(env.server);
});
afterAll(async () => {
  await env?.stop();
});

const password = 'correct horse battery';
const newPassword = 'a brand new password';

const change = (token: string, body: Record<string, unknown>, options: { target?: TestApp; headers?: Record<string, string> } = {}) =>
  api(env.server, 'POST', '/v1/me/password', { publishableKey: (options.target ?? app).publishable_key, bearer: token, body, headers: options.headers });
const signIn = (email: string, pw: string) => api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password: pw } });
const me = (token: string) => api(env.server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token });

/** A user created server-side without a password, and a fresh session from a sign-in token. */
async function passwordlessUser() {
  const email = uniqueEmail('nopw');
  const created = await api(env.server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email } });
  expect(created.status).toBe(201);
  const issued = await api(env.server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: created.body.id, expires_in_seconds: 600 } });
  expect(issued.status).toBe(200);
  return { email, userId: created.body.id as string, sessionId: issued.body.session_id as string, token: issued.body.token as string };
}

describe('15 POST /v1/me/password', () => {
  it('15 change password: the new one works, the old one not, every other session is revoked, the current one stays', async () => {
    const user = await verifiedUser(env, app);
    const elsewhere = await signIn(user.email, password);
    const res = await change(user.tokens.access_token, { current_password: password, new_password: newPassword });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'password_changed' });
    expect((await me(user.tokens.access_token)).status).toBe(200);
    expect((await me(elsewhere.body.access_token)).status).toBe(401);
    expect((await signIn(user.email, password)).status).toBe(401);
    expect((await signIn(user.email, newPassword)).status).toBe(200);
  });

  it('15 notice: the user is told by email, in text and HTML, with no secret in it', async () => {
    const user = await verifiedUser(env, app);
    expect((await change(user.tokens.access_token, { current_password: password, new_password: newPassword })).status).toBe(200);
    const notice = await env.sink.waitFor(user.email, { count: 2 });
    expect(notice.subject).toMatch(/^Your password was changed for/);
    expect(notice.html).toContain('Your password was changed');
    for (const part of [notice.text, notice.html]) {
      expect(part).not.toContain(newPassword);
      expect(part).not.toContain(password);
      expect(part).not.toMatch(/https?:\/\/|token|\b\d{6}\b/);
    }
  });

  it('15 403 for a wrong current password, 400 without one or with a short new one; nothing changes', async () => {
    const user = await verifiedUser(env, app);
    const wrong = await change(user.tokens.access_token, { current_password: 'not my password', new_password: newPassword });
    expect(wrong.status).toBe(403);
    expect(Object.keys(wrong.body)).toEqual(['detail', 'code']);
    expect((await change(user.tokens.access_token, { new_password: newPassword })).status).toBe(400);
    expect((await change(user.tokens.access_token, { current_password: password, new_password: 'short' })).status).toBe(400);
    expect((await signIn(user.email, password)).status).toBe(200);
  });

  it('15 a user without a password sets one without current_password right after signing in', async () => {
    const user = await passwordlessUser();
    const res = await change(user.token, { new_password: newPassword });
    expect(res.status).toBe(200);
    expect((await signIn(user.email, newPassword)).status).toBe(200);
    // From now on the account has a password: changing it needs the current one.
    expect((await change(user.token, { new_password: 'third password here' })).status).toBe(400);
  });

  it('15 a user without a password whose access token is older than 10 minutes must sign in again (403)', async () => {
    const user = await passwordlessUser();
    // The server's own signing key and issuer, with a clock 11 minutes behind: a valid token issued 11 minutes ago.
    const config = loadConfig({ ...env.server.env });
    const past = new Date(Date.now() - 11 * 60 * 1000);
    const deps = createDeps(config, createLogger('silent'), { clock: { now: () => past } });
    let stale: string;
    try {
      stale = await deps.keys.signAccessToken(app.app_id, { sub: user.userId, sid: user.sessionId, email: user.email, email_verified: false }, new Date(Date.now() + 4 * 60 * 1000));
    } finally {
      await deps.close();
    }
    expect((await me(stale)).status).toBe(200);
    const res = await change(stale, { new_password: newPassword });
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/sign in again/);
    expect((await signIn(user.email, newPassword)).status).toBe(401);
  });

  it('15 CSRF: with the __session cookie, an Origin off the allow-list is 403 and changes nothing; an allowed one passes', async () => {
    const user = await verifiedUser(env, app);
    const cookie = `__session=${user.tokens.access_token}`;
    const body = { current_password: password, new_password: newPassword };
    const send = (headers: Record<string, string>) => api(env.server, 'POST', '/v1/me/password', { publishableKey: app.publishable_key, body, headers: { cookie, ...headers } });
    expect((await send({ origin: 'https://evil.example.com' })).status).toBe(403);
    expect((await send({})).status).toBe(403);
    expect((await signIn(user.email, password)).status).toBe(200);
    expect((await send({ origin: ORIGIN })).status).toBe(200);
    expect((await signIn(user.email, newPassword)).status).toBe(200);
  });

  it("15 app isolation: one app's token with another app's key is 401", async () => {
    const user = await verifiedUser(env, app);
    const res = await change(user.tokens.access_token, { current_password: password, new_password: newPassword }, { target: other });
    expect(res.status).toBe(401);
    expect((await signIn(user.email, password)).status).toBe(200);
  });

  it('15 without a session: 401', async () => {
    expect((await api(env.server, 'POST', '/v1/me/password', { publishableKey: app.publishable_key, body: { new_password: newPassword } })).status).toBe(401);
  });
});

describe('15 wrong current passwords count in the sign-in windows', () => {
  let limited: AuthEnv;
  let limitedApp: TestApp;
  beforeAll(async () => {
    limited = await startAuthServer({ RATE_LIMITS: 'signin_email=3/60' });
    limitedApp = await createApp(limited.server);
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it('15 signin_email: two wrong current passwords and a sign-in fill the window; the next change is 429', async () => {
    const user = await verifiedUser(limited, limitedApp);
    const send = (current: string) =>
      api(limited.server, 'POST', '/v1/me/password', {
        publishableKey: limitedApp.publishable_key,
        bearer: user.tokens.access_token,
        body: { current_password: current, new_password: newPassword },
      });
    expect((await send('wrong one 1')).status).toBe(403);
    expect((await send('wrong one 2')).status).toBe(403);
    // The same window as a password sign-in for this email from this IP.
    expect((await api(limited.server, 'POST', '/v1/signins', { publishableKey: limitedApp.publishable_key, body: { email: user.email, password: 'wrong one 3' } })).status).toBe(401);
    const full = await send(password);
    expect(full.status).toBe(429);
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
