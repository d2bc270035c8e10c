import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, sharedAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { enrollTotp } from '../helpers/mfa.js';

// A ban refused at sign-in (docs/events.md, contract 17): the credential proved right, the ban refuses it,
// and the refusal is one signin.failed with reason user_banned and the method, on every way of signing in;
// never a session.created, never invalid_credentials (which a wrong password still gets).

let env: AuthEnv;
let app: TestApp;

beforeAll(async () => {
  env = await sharedAuthServer();
  app = await createApp(env.server);
});
afterAll(async () => {
  await env?.stop();
});

const password = 'correct horse battery';
const eventsOf = async (userId: string) => {
  const res = await api(env.server, 'GET', `/v1/events?user_id=${userId}&limit=200`, { bearer: app.secret_key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.events as any[]).reverse();
};
const signIn = (email: string, pw: string) =>
  api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password: pw }, headers: { 'user-agent': 'events-types/1' } });
const asServer = (method: string, path: string, body?: unknown) => api(env.server, method, path, { bearer: app.secret_key, body });

describe('a ban refused at sign-in', () => {
  const ban = async (userId: string) => expect((await asServer('PATCH', `/v1/users/${userId}`, { banned: true })).status).toBe(200);
  const since = async (userId: string, after: number) => (await eventsOf(userId)).slice(after);

  it("a banned user's right password: 403 user_banned, one signin.failed (reason user_banned), no session; a wrong one invalid_credentials", async () => {
    const user = await verifiedUser(env, app);
    await ban(user.userId);
    const before = (await eventsOf(user.userId)).length;
    const refused = await signIn(user.email, password);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('user_banned');
    expect((await signIn(user.email, 'not the password')).body.code).toBe('invalid_credentials');
    const events = await since(user.userId, before);
    expect(events.map((e) => [e.type, e.data.reason])).toEqual([
      ['signin.failed', 'user_banned'],
      ['signin.failed', 'invalid_credentials'],
    ]);
    expect(events[0]).toMatchObject({ actor: { type: 'user', id: user.userId }, data: { reason: 'user_banned', method: 'password' }, ip: '127.0.0.1', user_agent: 'events-types/1' });
    // A refresh of a banned user's token is refused too, and is no sign-in: nothing written.
    const refresh = await api(env.server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body: { refresh_token: user.tokens.refresh_token } });
    expect(refresh.status).toBeGreaterThanOrEqual(400);
    expect(await since(user.userId, before + 2)).toEqual([]);
  });

  it('with a second factor (refused before the challenge), by an emailed code, and by sign-in token: one signin.failed each, with its method', async () => {
    const withFactor = await verifiedUser(env, app);
    await enrollTotp(env.server, app, withFactor.tokens.access_token);
    await ban(withFactor.userId);
    const beforeFactor = (await eventsOf(withFactor.userId)).length;
    const refused = await signIn(withFactor.email, password);
    expect([refused.status, refused.body.code, refused.body.mfa_token]).toEqual([403, 'user_banned', undefined]);
    expect((await since(withFactor.userId, beforeFactor)).map((e) => [e.type, e.data.reason, e.data.method])).toEqual([['signin.failed', 'user_banned', 'password']]);

    // The app emails a sign-in code (its verification method): the code proves the inbox, the ban refuses it.
    const byCode = await verifiedUser(env, app);
    const sent = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: byCode.email } });
    expect(sent.body.status).toBe('magic_link_sent');
    const code = await codeFor(env.sink, byCode.email, 2);
    await ban(byCode.userId);
    const beforeCode = (await eventsOf(byCode.userId)).length;
    const opened = await api(env.server, 'POST', '/v1/verify-code', { publishableKey: app.publishable_key, body: { email: byCode.email, code } });
    expect([opened.status, opened.body.code]).toEqual([403, 'user_banned']);
    expect((await since(byCode.userId, beforeCode)).map((e) => [e.type, e.data.reason, e.data.method])).toEqual([['signin.failed', 'user_banned', 'code']]);

    const minted = await verifiedUser(env, app);
    await ban(minted.userId);
    const beforeToken = (await eventsOf(minted.userId)).length;
    expect((await asServer('POST', '/v1/sign_in_tokens', { user_id: minted.userId })).status).toBe(403);
    const [failed, ...rest] = await since(minted.userId, beforeToken);
    expect(rest).toEqual([]);
    expect(failed).toMatchObject({ type: 'signin.failed', actor: { type: 'secret_key' }, data: { reason: 'user_banned', method: 'sign_in_token' } });
  });
});

