import { describe, expect, it } from 'vitest';
import { uniqueEmail, verifiedUser } from '../helpers/accounts.js';
import { api } from '../helpers/fixtures.js';
import { useAuthServerApp } from '../helpers/private-app.js';

// Events of a user's life (docs/events.md, contract 17): each change writes its type once, in the change's
// transaction, from every path; a refused change writes none; a deleted user's events lose their personal data.

const { env, app } = useAuthServerApp({ RATE_LIMITS: '' });

const password = 'correct horse battery';
const eventsOf = async (userId: string) => {
  const res = await api(env.server, 'GET', `/v1/events?user_id=${userId}&limit=200`, { bearer: app.secret_key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.events as any[]).reverse();
};
const typesOf = async (userId: string) => (await eventsOf(userId)).map((e) => e.type);
const signIn = (email: string, pw: string) =>
  api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password: pw }, headers: { 'user-agent': 'events-types/1' } });
const asUser = (method: string, path: string, token: string, body?: unknown) => api(env.server, method, path, { publishableKey: app.publishable_key, bearer: token, body });
const asServer = (method: string, path: string, body?: unknown) => api(env.server, method, path, { bearer: app.secret_key, body });

describe('sessions', () => {
  it('a password sign-in writes session.created (method, amr, session_id, ip, user agent); a wrong password signin.failed and no session', async () => {
    const user = await verifiedUser(env, app);
    const wrong = await signIn(user.email, 'not the password');
    expect(wrong.status).toBe(401);
    const ok = await signIn(user.email, password);
    expect(ok.status).toBe(200);
    const events = await eventsOf(user.userId);
    expect(events.map((e) => e.type)).toEqual(['user.created', 'session.created', 'signin.failed', 'session.created']);
    expect(events[1].data).toMatchObject({ method: 'code', amr: ['email'], session_id: user.tokens.session_id });
    expect(events[2]).toMatchObject({ actor: { type: 'user', id: user.userId }, data: { reason: 'invalid_credentials', method: 'password' }, user_agent: 'events-types/1' });
    expect(JSON.stringify(events[2])).not.toContain('not the password');
    expect(events[3]).toMatchObject({ actor: { type: 'user', id: user.userId }, data: { method: 'password', amr: ['pwd'], session_id: ok.body.session_id }, ip: '127.0.0.1', user_agent: 'events-types/1' });
    expect(JSON.stringify(events)).not.toContain(ok.body.refresh_token);
  });

  it('logout, revoking one session and revoking the others each write session.revoked with its reason, once', async () => {
    const user = await verifiedUser(env, app);
    const a = (await signIn(user.email, password)).body;
    const b = (await signIn(user.email, password)).body;
    const c = (await signIn(user.email, password)).body;
    expect((await asUser('POST', '/v1/sessions/logout', a.access_token)).status).toBeLessThan(300);
    expect((await asUser('POST', '/v1/sessions/logout', a.access_token)).status).toBe(401);
    expect((await asUser('DELETE', `/v1/me/sessions/${b.session_id}`, c.access_token)).status).toBe(200);
    expect((await asUser('POST', '/v1/me/sessions/revoke_others', c.access_token)).body).toEqual({ revoked: 1 });
    const revoked = (await eventsOf(user.userId)).filter((e) => e.type === 'session.revoked').map((e) => [e.data.session_id, e.data.reason]);
    expect(revoked).toEqual([
      [a.session_id, 'logout'],
      [b.session_id, 'revoked'],
      [user.tokens.session_id, 'others_revoked'],
    ]);
  });

  it('a sign-in token writes session.created with the secret key as actor', async () => {
    const created = await asServer('POST', '/v1/users', { email: uniqueEmail('token') });
    const issued = await asServer('POST', '/v1/sign_in_tokens', { user_id: created.body.id, expires_in_seconds: 600 });
    expect(issued.status).toBe(200);
    const [, opened] = await eventsOf(created.body.id);
    expect(opened).toMatchObject({ type: 'session.created', actor: { type: 'secret_key', id: null }, data: { method: 'sign_in_token', amr: ['token'], session_id: issued.body.session_id } });
  });
});

describe('user changes', () => {
  it('PATCH /v1/users writes user.updated with the names changed; a new email also email.changed; a refused one nothing', async () => {
    const user = await verifiedUser(env, app);
    const other = await verifiedUser(env, app);
    expect((await asServer('PATCH', `/v1/users/${user.userId}`, { public_metadata: { plan: 'pro' } })).status).toBe(200);
    const before = await typesOf(user.userId);
    expect((await asServer('PATCH', `/v1/users/${user.userId}`, { email: other.email })).status).toBe(409);
    expect((await asServer('PATCH', `/v1/users/${user.userId}`, { bogus: 1 })).status).toBe(400);
    expect(await typesOf(user.userId)).toEqual(before);
    const email = uniqueEmail('moved');
    expect((await asServer('PATCH', `/v1/users/${user.userId}`, { email })).status).toBe(200);
    const events = await eventsOf(user.userId);
    expect(events.filter((e) => e.type === 'user.updated').map((e) => e.data.changed)).toEqual([['public_metadata'], ['email']]);
    expect(events.filter((e) => e.type === 'email.changed').map((e) => e.data)).toEqual([{ email }]);
    expect(JSON.stringify(events)).not.toContain('"pro"');
  });

  it('a ban writes user.updated and session.revoked (banned) for each live session; PATCH /v1/me user.updated by the user', async () => {
    const user = await verifiedUser(env, app);
    expect((await asUser('PATCH', '/v1/me', user.tokens.access_token, { unsafe_metadata: { theme: 'dark' } })).status).toBe(200);
    const second = (await signIn(user.email, password)).body;
    expect((await asServer('PATCH', `/v1/users/${user.userId}`, { banned: true })).status).toBe(200);
    const events = await eventsOf(user.userId);
    expect(events.filter((e) => e.type === 'user.updated').map((e) => [e.actor.type, e.data.changed])).toEqual([
      ['user', ['unsafe_metadata']],
      ['secret_key', ['banned']],
    ]);
    const revoked = events.filter((e) => e.type === 'session.revoked');
    expect(revoked.map((e) => e.data.reason)).toEqual(['banned', 'banned']);
    expect(new Set(revoked.map((e) => e.data.session_id))).toEqual(new Set([user.tokens.session_id, second.session_id]));
  });

  it('a password change writes password.changed (via change) and revokes the other sessions (password_changed); a wrong current password nothing', async () => {
    const user = await verifiedUser(env, app);
    const elsewhere = (await signIn(user.email, password)).body;
    const before = await typesOf(user.userId);
    expect((await asUser('POST', '/v1/me/password', user.tokens.access_token, { current_password: 'wrong password!', new_password: 'a brand new password' })).status).toBe(403);
    expect(await typesOf(user.userId)).toEqual(before);
    expect((await asUser('POST', '/v1/me/password', user.tokens.access_token, { current_password: password, new_password: 'a brand new password' })).status).toBe(200);
    const events = (await eventsOf(user.userId)).slice(before.length);
    expect(events.map((e) => [e.type, e.data]).sort()).toEqual([
      ['password.changed', { via: 'change' }],
      ['session.revoked', { session_id: elsewhere.session_id, reason: 'password_changed' }],
    ]);
  });
});

describe('deletion and export', () => {
  it('the export holds the user’s events and writes user.exported', async () => {
    const user = await verifiedUser(env, app);
    const res = await fetch(`${env.server.url}/v1/users/${user.userId}/export`, { headers: { authorization: `Bearer ${app.secret_key}` } });
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.events.map((e: any) => e.type)).toEqual(['user.exported', 'session.created', 'user.created']);
    expect(doc.events[2].data.email).toBe(user.email);
  });

  it('deleting a user writes user.deleted and session.revoked (user_deleted), and erases ip, user agent and emails of their events', async () => {
    const user = await verifiedUser(env, app);
    await signIn(user.email, password);
    expect((await asServer('DELETE', `/v1/users/${user.userId}`)).status).toBeLessThan(300);
    expect((await asServer('DELETE', `/v1/users/${user.userId}`)).status).toBe(404);
    const events = await eventsOf(user.userId);
    // Events of one transaction share their millisecond, and ids order within it at random: compared as a set.
    expect(events.map((e) => e.type).sort()).toEqual(['session.created', 'session.created', 'session.revoked', 'session.revoked', 'user.created', 'user.deleted']);
    expect(events.filter((e) => e.type === 'session.revoked').every((e) => e.data.reason === 'user_deleted')).toBe(true);
    expect(events.every((e) => e.ip === null && e.user_agent === null)).toBe(true);
    expect(JSON.stringify(events)).not.toContain(user.email);
    expect(events[0].data).toEqual({ source: 'signup', email: null });
    expect(events.find((e) => e.type === 'user.deleted').actor).toEqual({ type: 'secret_key', id: null });
  });
});
