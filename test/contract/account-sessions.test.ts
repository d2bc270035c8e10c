import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies, startAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/account.md: the user's own sessions. Revocation is effective at once on every node
// (section 5); on PostgreSQL a second node on the same database checks that.

let env: AuthEnv;
let app: TestApp;
let other: TestApp;
let second: TestServer | undefined;
const ORIGIN = 'http://localhost:3000';

// Nodes behind one load balancer share PUBLIC_BASE_URL (the tokens' issuer) and MASTER_KEY.
const shared = { TRUST_PROXY: 'true', PUBLIC_BASE_URL: 'https://auth.example.test' };

beforeAll(async () => {
  env = await startAuthServer(shared);
  app = await createApp(env.server, { args: ['--allowed-origin', ORIGIN] });
  other = await createApp(env.server);
  if (TEST_DB === 'postgres') {
    second = await startServer({ ...shared, SMTP_URL: env.sink.url, DATABASE_URL: env.server.databaseUrl, MASTER_KEY: env.server.env.MASTER_KEY });
  }
});
afterAll(async () => {
  await second?.stop();
  await env?.stop();
});

const password = 'correct horse battery';
const key = () => app.publishable_key;

/** A password sign-in from a given browser and address. */
async function signIn(email: string, userAgent: string, ip: string) {
  const res = await api(env.server, 'POST', '/v1/signins', { publishableKey: key(), body: { email, password }, headers: { 'user-agent': userAgent, 'x-forwarded-for': ip } });
  expect(res.status).toBe(200);
  return res.body as { access_token: string; refresh_token: string; session_id: string };
}
const list = (token: string, server: TestServer = env.server) => api(server, 'GET', '/v1/me/sessions', { publishableKey: key(), bearer: token });
const revoke = (token: string, sessionId: string, target: TestApp = app) =>
  api(env.server, 'DELETE', `/v1/me/sessions/${sessionId}`, { publishableKey: target.publishable_key, bearer: token });
const revokeOthers = (token: string) => api(env.server, 'POST', '/v1/me/sessions/revoke_others', { publishableKey: key(), bearer: token });
const me = (token: string, server: TestServer = env.server) => api(server, 'GET', '/v1/me', { publishableKey: key(), bearer: token });

describe('15 GET /v1/me/sessions', () => {
  it('15 live sessions, newest first, with user agent, IP and current; revoked ones are gone', async () => {
    const user = await verifiedUser(env, app);
    const phone = await signIn(user.email, 'Phone/1.0', '198.51.100.7');
    const laptop = await signIn(user.email, 'Laptop/2.0', '2001:db8::42');
    const res = await list(phone.access_token);
    expect(res.status).toBe(200);
    const sessions = res.body.sessions as Record<string, unknown>[];
    expect(sessions.map((s) => s.session_id)).toEqual([laptop.session_id, phone.session_id, user.tokens.session_id]);
    expect(sessions[0]).toMatchObject({ user_agent: 'Laptop/2.0', ip: '2001:db8::42', current: false });
    expect(sessions[1]).toMatchObject({ user_agent: 'Phone/1.0', ip: '198.51.100.7', current: true });
    for (const session of sessions) {
      expect(Object.keys(session).sort()).toEqual(['created_at', 'current', 'ip', 'last_used_at', 'session_id', 'user_agent']);
      expect(Date.parse(session.last_used_at as string)).toBeGreaterThanOrEqual(Date.parse(session.created_at as string));
    }
    // A refresh moves last_used_at; a logout removes the session from the list.
    const refreshed = await api(env.server, 'POST', '/v1/tokens/session', { publishableKey: key(), body: { refresh_token: laptop.refresh_token } });
    expect(refreshed.status).toBe(200);
    await api(env.server, 'POST', '/v1/sessions/logout', { publishableKey: key(), bearer: user.tokens.access_token });
    const after = (await list(phone.access_token)).body.sessions as Record<string, unknown>[];
    expect(after.map((s) => s.session_id)).toEqual([laptop.session_id, phone.session_id]);
    expect(Date.parse(after[0].last_used_at as string)).toBeGreaterThanOrEqual(Date.parse(sessions[0].last_used_at as string));
  });

  it("15 only the user's own sessions, and 401 with another app's key", async () => {
    const a = await verifiedUser(env, app);
    const b = await verifiedUser(env, app);
    const ids = ((await list(a.tokens.access_token)).body.sessions as { session_id: string }[]).map((s) => s.session_id);
    expect(ids).toEqual([a.tokens.session_id]);
    expect(ids).not.toContain(b.tokens.session_id);
    expect((await api(env.server, 'GET', '/v1/me/sessions', { publishableKey: other.publishable_key, bearer: a.tokens.access_token })).status).toBe(401);
  });
});

describe('15 DELETE /v1/me/sessions/{session_id}', () => {
  it('15 revokes one of my sessions at once (on every node); again is 404', async () => {
    const user = await verifiedUser(env, app);
    const tablet = await signIn(user.email, 'Tablet/3.0', '203.0.113.8');
    expect((await me(tablet.access_token, second)).status).toBe(200);
    const res = await revoke(user.tokens.access_token, tablet.session_id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'revoked' });
    expect((await me(tablet.access_token)).status).toBe(401);
    expect((await me(tablet.access_token, second)).status).toBe(401);
    const refresh = await api(second ?? env.server, 'POST', '/v1/tokens/session', { publishableKey: key(), body: { refresh_token: tablet.refresh_token } });
    expect(refresh.status).toBe(401);
    expect((await revoke(user.tokens.access_token, tablet.session_id)).status).toBe(404);
  });

  it("15 another user's session, another app's, an unknown id: 404 and nothing is revoked; a malformed id is 400", async () => {
    const user = await verifiedUser(env, app);
    const victim = await verifiedUser(env, app);
    const res = await revoke(user.tokens.access_token, victim.tokens.session_id);
    expect(res.status).toBe(404);
    expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    expect((await me(victim.tokens.access_token)).status).toBe(200);

    const outsider = await verifiedUser(env, other);
    const otherRes = await api(env.server, 'DELETE', `/v1/me/sessions/${outsider.tokens.session_id}`, { publishableKey: key(), bearer: user.tokens.access_token });
    expect(otherRes.status).toBe(404);
    expect((await api(env.server, 'GET', '/v1/me', { publishableKey: other.publishable_key, bearer: outsider.tokens.access_token })).status).toBe(200);
    expect((await revoke(user.tokens.access_token, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await revoke(user.tokens.access_token, 'not-a-uuid')).status).toBe(400);
  });

  it('15 revoking the current session clears its cookies', async () => {
    const user = await verifiedUser(env, app);
    const res = await revoke(user.tokens.access_token, user.tokens.session_id);
    expect(res.status).toBe(200);
    const cookies = setCookies(res.headers);
    expect(cookies.__session?.value).toBe('');
    expect(cookies.__session?.attributes['max-age']).toBe('0');
    expect((await me(user.tokens.access_token)).status).toBe(401);
  });

  it('15 CSRF: with the __session cookie, an Origin off the allow-list is 403 and the session stays', async () => {
    const user = await verifiedUser(env, app);
    const laptop = await signIn(user.email, 'Laptop/2.0', '203.0.113.9');
    const cookie = `__session=${user.tokens.access_token}`;
    const send = (headers: Record<string, string>) =>
      api(env.server, 'DELETE', `/v1/me/sessions/${laptop.session_id}`, { publishableKey: key(), headers: { cookie, ...headers } });
    expect((await send({ origin: 'https://evil.example.com' })).status).toBe(403);
    expect((await send({})).status).toBe(403);
    expect((await me(laptop.access_token)).status).toBe(200);
    expect((await send({ origin: ORIGIN })).status).toBe(200);
    expect((await me(laptop.access_token)).status).toBe(401);
  });
});

describe('15 POST /v1/me/sessions/revoke_others', () => {
  it('15 revokes every other session of mine (on every node), keeps the current one and no one else\'s', async () => {
    const user = await verifiedUser(env, app);
    const bystander = await verifiedUser(env, app);
    const others = [await signIn(user.email, 'A/1', '192.0.2.1'), await signIn(user.email, 'B/1', '192.0.2.2')];
    const res = await revokeOthers(user.tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revoked: 2 });
    for (const session of others) {
      expect((await me(session.access_token)).status).toBe(401);
      expect((await me(session.access_token, second)).status).toBe(401);
    }
    expect((await me(user.tokens.access_token)).status).toBe(200);
    expect((await me(bystander.tokens.access_token)).status).toBe(200);
    expect((await revokeOthers(user.tokens.access_token)).body).toEqual({ revoked: 0 });
  });

  it('15 CSRF and app isolation: a cookie from a foreign Origin is 403, another app\'s key is 401; nothing is revoked', async () => {
    const user = await verifiedUser(env, app);
    const phone = await signIn(user.email, 'Phone/1.0', '192.0.2.3');
    const foreign = await api(env.server, 'POST', '/v1/me/sessions/revoke_others', {
      publishableKey: key(),
      headers: { cookie: `__session=${user.tokens.access_token}`, origin: 'https://evil.example.com' },
    });
    expect(foreign.status).toBe(403);
    const wrongApp = await api(env.server, 'POST', '/v1/me/sessions/revoke_others', { publishableKey: other.publishable_key, bearer: user.tokens.access_token });
    expect(wrongApp.status).toBe(401);
    expect((await me(phone.access_token)).status).toBe(200);
  });
});
