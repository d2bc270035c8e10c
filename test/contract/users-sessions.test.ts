import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { ADMIN_TOKEN, manage } from '../helpers/console.js';
import { api, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { userWithTotp } from '../helpers/mfa.js';

// Issue 54 (docs/users.md): GET /v1/users/{user_id}/sessions, the user's live sessions as the server sees
// them (what GET /v1/me/sessions shows the user, with amr and aal), and POST /v1/users/{user_id}/sessions/revoke,
// which signs the user out everywhere. Secret, or a Console credential with X-App-Id (a viewer reads only);
// another app's user is 404 and changes nothing.

let env: AuthEnv;
let app: TestApp;
let other: TestApp;
let adminToken: string;
let viewerToken: string;
let strangerToken: string;

async function tenantToken(tenantId: string, role: 'admin' | 'viewer'): Promise<string> {
  const token = await manage(env.server, ADMIN_TOKEN, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: `sessions ${role}`, role });
  expect(token.status, JSON.stringify(token.body)).toBe(201);
  return token.body.token as string;
}

beforeAll(async () => {
  env = await sharedAuthServer({ ADMIN_TOKEN });
  const tenantId = await createTenant(env.server);
  app = await createApp(env.server, { tenantId });
  other = await createApp(env.server, { tenantId });
  adminToken = await tenantToken(tenantId, 'admin');
  viewerToken = await tenantToken(tenantId, 'viewer');
  strangerToken = await tenantToken(await createTenant(env.server, 'Elsewhere'), 'admin');
});
afterAll(async () => {
  await env?.stop();
});

const list = (userId: string, key = app.secret_key) => api(env.server, 'GET', `/v1/users/${userId}/sessions`, { bearer: key });
const revokeAll = (userId: string, key = app.secret_key) => api(env.server, 'POST', `/v1/users/${userId}/sessions/revoke`, { bearer: key });
const signIn = async (email: string, userAgent: string) => {
  const res = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password: 'correct horse battery' }, headers: { 'user-agent': userAgent } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { access_token: string; refresh_token: string; session_id: string };
};
const refresh = (refresh_token: string) => api(env.server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body: { refresh_token } });
const me = (token: string) => api(env.server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token });
const ids = (res: { body: any }) => (res.body.sessions as { session_id: string }[]).map((s) => s.session_id);

describe('GET /v1/users/{user_id}/sessions', () => {
  it('lists the live sessions newest first, each with its times, browser, address, amr and aal; a revoked one is gone', async () => {
    const user = await verifiedUser(env, app);
    const laptop = await signIn(user.email, 'Laptop/2.0');
    const res = await list(user.userId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(ids(res)).toEqual([laptop.session_id, user.tokens.session_id]);
    const [newest] = res.body.sessions;
    expect(Object.keys(newest).sort()).toEqual(['aal', 'amr', 'created_at', 'expires_at', 'ip', 'last_used_at', 'session_id', 'user_agent']);
    expect(newest).toMatchObject({ user_agent: 'Laptop/2.0', amr: ['pwd'], aal: 'aal1' });
    expect(newest.ip).toMatch(/127\.0\.0\.1|::1/);
    expect(Date.parse(newest.expires_at)).toBeGreaterThan(Date.now());
    expect(res.body.sessions[1].amr).toEqual(['email']);
    // A refresh moves last_used_at past created_at.
    expect((await refresh(laptop.refresh_token)).status).toBe(200);
    const after = (await list(user.userId)).body.sessions[0];
    expect(Date.parse(after.last_used_at)).toBeGreaterThanOrEqual(Date.parse(after.created_at));
    expect((await api(env.server, 'POST', `/v1/sessions/revoke?session_id=${laptop.session_id}`, { bearer: app.secret_key })).status).toBe(200);
    expect(ids(await list(user.userId))).toEqual([user.tokens.session_id]);
  });

  it('the session that confirmed a second factor says aal2 with both methods', async () => {
    const user = await userWithTotp(env, app);
    const [session] = (await list(user.userId)).body.sessions;
    expect(session.session_id).toBe(user.tokens.session_id);
    expect(session).toMatchObject({ amr: ['email', 'otp'], aal: 'aal2' });
  });

  it('answers a Console credential with X-App-Id, a viewer included', async () => {
    const user = await verifiedUser(env, app);
    for (const token of [adminToken, viewerToken]) {
      const res = await manage(env.server, token, 'GET', `/v1/users/${user.userId}/sessions`, undefined, app.app_id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(ids(res)).toEqual([user.tokens.session_id]);
    }
  });

  it("is 404 for another app's user, an unknown id, or a member of another tenant; 400 for a bad id", async () => {
    const user = await verifiedUser(env, app);
    for (const res of [
      await list(user.userId, other.secret_key),
      await list(randomUUID()),
      await manage(env.server, adminToken, 'GET', `/v1/users/${user.userId}/sessions`, undefined, other.app_id),
    ]) {
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found', detail: expect.any(String) });
    }
    const stranger = await manage(env.server, strangerToken, 'GET', `/v1/users/${user.userId}/sessions`, undefined, app.app_id);
    expect(stranger.status, JSON.stringify(stranger.body)).toBe(404);
    expect(stranger.body.sessions).toBeUndefined();
    const bad = await list('not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: expect.any(String), detail: expect.any(String) });
  });
});

describe('POST /v1/users/{user_id}/sessions/revoke', () => {
  it('signs the user out everywhere: tokens refused, refresh fails, one session.revoked each; they may sign in again', async () => {
    const user = await verifiedUser(env, app);
    const phone = await signIn(user.email, 'Phone/1.0');
    const res = await revokeAll(user.userId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ revoked: 2 });
    expect((await me(phone.access_token)).status).toBe(401);
    expect((await me(user.tokens.access_token)).status).toBe(401);
    expect((await refresh(phone.refresh_token)).status).toBe(401);
    expect((await list(user.userId)).body.sessions).toEqual([]);
    const events = await api(env.server, 'GET', `/v1/events?user_id=${user.userId}&type=session.revoked`, { bearer: app.secret_key });
    expect(events.body.events.map((e: any) => [e.data.session_id, e.data.reason, e.actor.type]).sort()).toEqual(
      [[phone.session_id, 'revoked', 'secret_key'], [user.tokens.session_id, 'revoked', 'secret_key']].sort(),
    );
    expect((await revokeAll(user.userId)).body).toEqual({ revoked: 0 });
    const again = await signIn(user.email, 'Phone/1.0');
    expect((await me(again.access_token)).status).toBe(200);
  });

  it('an admin token with X-App-Id revokes (actor token); a viewer is refused and nothing ends', async () => {
    const user = await verifiedUser(env, app);
    const refused = await manage(env.server, viewerToken, 'POST', `/v1/users/${user.userId}/sessions/revoke`, undefined, app.app_id);
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body).toMatchObject({ code: expect.any(String), detail: expect.any(String) });
    expect((await me(user.tokens.access_token)).status).toBe(200);
    const done = await manage(env.server, adminToken, 'POST', `/v1/users/${user.userId}/sessions/revoke`, undefined, app.app_id);
    expect(done.body).toEqual({ revoked: 1 });
    const events = await api(env.server, 'GET', `/v1/events?user_id=${user.userId}&type=session.revoked`, { bearer: app.secret_key });
    expect(events.body.events.map((e: any) => e.actor.type)).toEqual(['token']);
  });

  it("is 404 for another app's user and ends nothing; an unknown body field is 400", async () => {
    const user = await verifiedUser(env, app);
    for (const res of [
      await revokeAll(user.userId, other.secret_key),
      await manage(env.server, adminToken, 'POST', `/v1/users/${user.userId}/sessions/revoke`, undefined, other.app_id),
      await manage(env.server, strangerToken, 'POST', `/v1/users/${user.userId}/sessions/revoke`, undefined, app.app_id),
    ]) {
      expect(res.status, JSON.stringify(res.body)).toBe(404);
    }
    const extra = await api(env.server, 'POST', `/v1/users/${user.userId}/sessions/revoke`, { bearer: app.secret_key, body: { everywhere: true } });
    expect(extra.status).toBe(400);
    expect((await me(user.tokens.access_token)).status).toBe(200);
    expect(ids(await list(user.userId))).toEqual([user.tokens.session_id]);
  });
});
