import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, linkFor, startAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { api, cliJson, createApp, type TestApp } from '../helpers/fixtures.js';
import { claimsOf, codeAt, enrollTotp, passwordChallenge, userWithTotp, verifyMfa } from '../helpers/mfa.js';
import { agedAccessToken, rowsNaming } from '../helpers/user-data.js';

// docs/mfa.md: managing factors (rename, removal with a recent aal2 sign-in), the operator's routes and
// CLI, notices, the `--mfa required` policy, browser flows, and a user's deletion taking their factors.

let env: AuthEnv;
let app: TestApp;
let strict: TestApp;
const ORIGIN = 'http://localhost:3000';

beforeAll(async () => {
  // A known MASTER_KEY (on SQLite too), so a test can sign an access token of a given age the way the server does.
  env = await startAuthServer({ MASTER_KEY: randomBytes(32).toString('base64') });
  app = await createApp(env.server, { args: ['--allowed-origin', ORIGIN, '--verification-method', 'both'] });
  strict = await createApp(env.server, { args: ['--mfa', 'required'] });
});
afterAll(async () => {
  await env?.stop();
});

const as = (target: TestApp, token: string) => ({ publishableKey: target.publishable_key, bearer: token });

describe('managing my factors', () => {
  it('rename: the new name is listed and offered at sign-in; 400 for an empty name', async () => {
    const user = await userWithTotp(env, app);
    const renamed = await api(env.server, 'PATCH', `/v1/me/factors/${user.factorId}`, { ...as(app, user.accessToken), body: { friendly_name: 'work phone' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ factor_id: user.factorId, friendly_name: 'work phone', status: 'verified' });
    expect((await api(env.server, 'PATCH', `/v1/me/factors/${user.factorId}`, { ...as(app, user.accessToken), body: { friendly_name: '' } })).status).toBe(400);
    const signin = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email, password: user.password } });
    expect(signin.body.factors).toEqual([{ factor_id: user.factorId, type: 'totp', friendly_name: 'work phone' }]);
  });

  it('remove: needs an access token issued within 10 minutes and aal2; then sign-in asks nothing, recovery codes are gone, a notice is sent', async () => {
    const user = await userWithTotp(env, app);
    const path = `/v1/me/factors/${user.factorId}`;
    const claims = { sub: user.userId, sid: user.tokens.session_id, email: user.email };
    const old = await agedAccessToken(env.server, app.app_id, { ...claims, amr: ['pwd', 'otp'], aal: 'aal2' }, 11 * 60);
    const stale = await api(env.server, 'DELETE', path, as(app, old));
    expect(stale.status).toBe(403);
    expect(stale.body.detail).toMatch(/sign in again/);
    const aal1 = await agedAccessToken(env.server, app.app_id, { ...claims, amr: ['pwd'], aal: 'aal1' }, 0);
    expect((await api(env.server, 'DELETE', path, as(app, aal1))).status).toBe(403);
    const removed = await api(env.server, 'DELETE', path, as(app, user.accessToken));
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ status: 'deleted' });
    expect((await api(env.server, 'DELETE', path, as(app, user.accessToken))).status).toBe(404);
    const signin = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email, password: user.password } });
    expect(signin.body.access_token).toBeTruthy();
    expect((await api(env.server, 'GET', '/v1/me/factors', as(app, user.accessToken))).body).toEqual({ factors: [], recovery_codes_remaining: 0 });
    const notice = await env.sink.waitFor(user.email, { count: 3 });
    expect(notice.subject).toMatch(/^A second factor was removed/);
  });

  it('a second factor is added only from an aal2 session once the user has one (403 aal2_required)', async () => {
    const user = await userWithTotp(env, app);
    const aal1 = await agedAccessToken(env.server, app.app_id, { sub: user.userId, sid: user.tokens.session_id, email: user.email, amr: ['pwd'], aal: 'aal1' }, 0);
    expect((await api(env.server, 'POST', '/v1/me/factors/totp', { ...as(app, aal1), body: {} })).status).toBe(403);
    expect((await api(env.server, 'POST', '/v1/me/factors/totp', { ...as(app, user.accessToken), body: {} })).status).toBe(201);
  });

  it('new recovery codes: the earlier set stops working', async () => {
    const user = await userWithTotp(env, app);
    const renewed = await api(env.server, 'POST', '/v1/me/recovery_codes', as(app, user.accessToken));
    expect(renewed.status).toBe(200);
    expect(renewed.body.recovery_codes).toHaveLength(10);
    expect((await verifyMfa(env.server, app, { mfa_token: await passwordChallenge(env.server, app, user.email, user.password), recovery_code: user.recoveryCodes[0] })).status).toBe(400);
    expect((await verifyMfa(env.server, app, { mfa_token: await passwordChallenge(env.server, app, user.email, user.password), recovery_code: renewed.body.recovery_codes[0] })).status).toBe(200);
  });
});

describe("the operator: a user's factors", () => {
  it('GET and DELETE /v1/users/{user_id}/factors (Secret): listed without secrets, reset with a notice; a session is 403', async () => {
    const user = await userWithTotp(env, app);
    const listed = await api(env.server, 'GET', `/v1/users/${user.userId}/factors`, { bearer: app.secret_key });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ factors: [expect.objectContaining({ factor_id: user.factorId, type: 'totp', status: 'verified' })], recovery_codes_remaining: 10 });
    expect(JSON.stringify(listed.body)).not.toContain(user.secret);
    expect((await api(env.server, 'GET', `/v1/users/${user.userId}/factors`, { publishableKey: app.publishable_key, bearer: user.accessToken })).status).toBe(403);
    const pending = await passwordChallenge(env.server, app, user.email, user.password);
    const reset = await api(env.server, 'DELETE', `/v1/users/${user.userId}/factors`, { bearer: app.secret_key });
    expect(reset.body).toEqual({ status: 'deleted' });
    // The challenge in flight died with the factors; the next sign-in asks for the first factor only.
    expect((await verifyMfa(env.server, app, { mfa_token: pending, code: codeAt(user.secret, 1) })).status).toBe(401);
    const signin = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email, password: user.password } });
    expect(signin.body.access_token).toBeTruthy();
    expect((await env.sink.waitFor(user.email, { count: 3 })).subject).toMatch(/^Your second factors were reset/);
    expect((await api(env.server, 'GET', `/v1/users/00000000-0000-4000-8000-000000000000/factors`, { bearer: app.secret_key })).status).toBe(404);
    expect((await api(env.server, 'GET', `/v1/users/not-a-uuid/factors`, { bearer: app.secret_key })).status).toBe(400);
  });

  it('gatehouse user factors / reset-factors APP USER: the same; an unknown user exits 1', async () => {
    const user = await userWithTotp(env, app);
    const listed = await cliJson<{ factors: { factor_id: string }[] }>(env.server, ['user', 'factors', app.app_id, user.userId]);
    expect(listed.factors.map((f) => f.factor_id)).toEqual([user.factorId]);
    expect(await cliJson(env.server, ['user', 'reset-factors', app.app_id, user.userId])).toEqual({ status: 'deleted' });
    expect((await cliJson<{ factors: unknown[] }>(env.server, ['user', 'factors', app.app_id, user.userId])).factors).toEqual([]);
    const unknown = await env.server.cli(['user', 'factors', strict.app_id, user.userId]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/user not found/);
  });

  it("a user's deletion removes their factors, recovery codes and challenges: nothing names them after", async () => {
    const user = await userWithTotp(env, app);
    await passwordChallenge(env.server, app, user.email, user.password);
    expect(Object.keys(await rowsNaming(env.server, user.userId))).toEqual(expect.arrayContaining(['mfa_factors', 'mfa_recovery_codes', 'mfa_challenges']));
    expect((await api(env.server, 'DELETE', `/v1/users/${user.userId}`, { bearer: app.secret_key })).status).toBe(200);
    expect(await rowsNaming(env.server, user.userId)).toEqual({});
  });
});

describe('every interactive first factor asks for the second', () => {
  it('a password reset proves the inbox only: its confirm answers mfa_required, and the new password is set', async () => {
    const user = await userWithTotp(env, app);
    expect((await api(env.server, 'POST', '/v1/password_resets', { publishableKey: app.publishable_key, body: { email: user.email } })).status).toBe(200);
    const code = await codeFor(env.sink, user.email, 3);
    const res = await api(env.server, 'POST', '/v1/password_resets/confirm', { publishableKey: app.publishable_key, body: { email: user.email, code, new_password: 'a brand new password' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mfa_required: true, factors: [{ factor_id: user.factorId, type: 'totp' }] });
    expect(res.body.access_token).toBeUndefined();
    expect(res.headers.get('set-cookie')).toBeNull();
    const done = await verifyMfa(env.server, app, { mfa_token: res.body.mfa_token, code: codeAt(user.secret, 1) });
    expect(claimsOf(done.body.access_token)).toMatchObject({ amr: ['email', 'otp'], aal: 'aal2' });
    expect((await passwordChallenge(env.server, app, user.email, 'a brand new password')).length).toBeGreaterThan(0);
  });
});

describe('browser flows', () => {
  it('an emailed magic link for a user with a factor redirects with ?mfa_token= and sets no cookie', async () => {
    const user = await userWithTotp(env, app);
    await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email, redirect_url: `${ORIGIN}/welcome` } });
    const link = await linkFor(env.sink, user.email, 3);
    const res = await api(env.server, 'GET', link.pathname + link.search);
    expect(res.status).toBe(302);
    expect(res.headers.get('set-cookie')).toBeNull();
    const location = new URL(res.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(`${ORIGIN}/welcome`);
    // The page holds only the token: POST /v1/mfa/challenge tells it what to ask for, and spends nothing.
    const mfaToken = location.searchParams.get('mfa_token');
    const described = await api(env.server, 'POST', '/v1/mfa/challenge', { publishableKey: app.publishable_key, body: { mfa_token: mfaToken } });
    expect(described.status).toBe(200);
    expect(described.body).toEqual({ mfa_required: true, expires_at: expect.any(String), factors: [{ factor_id: user.factorId, type: 'totp', friendly_name: null }] });
    expect(Date.parse(described.body.expires_at) - Date.now()).toBeGreaterThan(60_000);
    expect((await api(env.server, 'POST', '/v1/mfa/challenge', { publishableKey: app.publishable_key, body: { mfa_token: 'mfa_unknown' } })).status).toBe(401);
    expect((await api(env.server, 'POST', '/v1/mfa/challenge', { publishableKey: strict.publishable_key, body: { mfa_token: mfaToken } })).status).toBe(401);
    const done = await verifyMfa(env.server, app, { mfa_token: mfaToken, code: codeAt(user.secret, 1) });
    expect(claimsOf(done.body.access_token)).toMatchObject({ amr: ['email', 'otp'], aal: 'aal2' });
    // Used, the token describes nothing.
    expect((await api(env.server, 'POST', '/v1/mfa/challenge', { publishableKey: app.publishable_key, body: { mfa_token: mfaToken } })).status).toBe(401);
  });
});

describe('--mfa required', () => {
  it('app show prints it; update switches it', async () => {
    expect(await cliJson(env.server, ['app', 'show', strict.app_id])).toMatchObject({ mfa: 'required' });
    expect(await cliJson(env.server, ['app', 'show', app.app_id])).toMatchObject({ mfa: 'optional' });
    const bad = await env.server.cli(['app', 'update', app.app_id, '--mfa', 'sometimes']);
    expect(bad.code).not.toBe(0);
  });

  it('a user without a factor gets an aal1 session that may only enroll: other routes 403 until a factor is confirmed', async () => {
    const user = await verifiedUser(env, strict);
    const token = user.tokens.access_token as string;
    expect(claimsOf(token)).toMatchObject({ aal: 'aal1', amr: ['email'] });
    expect((await api(env.server, 'GET', '/v1/me', as(strict, token))).status).toBe(200);
    const refused = await api(env.server, 'GET', '/v1/me/sessions', as(strict, token));
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/requires a second factor/);
    expect((await api(env.server, 'GET', '/v1/tables', as(strict, token))).status).toBe(403);
    const totp = await enrollTotp(env.server, strict, token);
    expect(claimsOf(totp.accessToken)).toMatchObject({ aal: 'aal2' });
    expect((await api(env.server, 'GET', '/v1/me/sessions', as(strict, totp.accessToken))).status).toBe(200);
    expect((await api(env.server, 'GET', '/v1/tables', as(strict, totp.accessToken))).status).toBe(200);
    // Sign-in now asks for the factor, and the session it gives is full.
    const done = await verifyMfa(env.server, strict, { mfa_token: await passwordChallenge(env.server, strict, user.email, user.password), code: codeAt(totp.secret, 1) });
    expect((await api(env.server, 'GET', '/v1/me/sessions', as(strict, done.body.access_token))).status).toBe(200);
  });

  it('server-issued sign-in tokens are not restricted', async () => {
    const created = await api(env.server, 'POST', '/v1/users', { bearer: strict.secret_key, body: { email: `srv.${Date.now()}@example.com` } });
    const issued = await api(env.server, 'POST', '/v1/sign_in_tokens', { bearer: strict.secret_key, body: { user_id: created.body.id, expires_in_seconds: 600 } });
    expect(claimsOf(issued.body.token)).toMatchObject({ amr: ['token'], aal: 'aal1' });
    expect((await api(env.server, 'GET', '/v1/me/sessions', as(strict, issued.body.token))).status).toBe(200);
  });
});
