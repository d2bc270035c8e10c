import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createDeps } from '../../src/deps.js';
import { createLogger } from '../../src/observability/logger.js';
import { startSession } from '../../src/services/sessions/sessions.js';
import { findUserById } from '../../src/store/repos/users.js';
import { codeFor, startAuthServer, uniqueEmail, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { execDatabase, queryDatabase } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { claimsOf, codeAt, enrollTotp, passwordChallenge, verifyMfa } from '../helpers/mfa.js';
import { softwareRegistration } from '../helpers/software-passkey.js';

// The third outside review (docs/security.md), findings 1 to 4, each as the reviewer reproduced it:
// an intruder's second factor that outlived the owner's claim of the address, a pending TOTP confirmed
// from an aal1 session, an aal1 session taking over an enrolled account, and a refreshed old session
// passing for a recent sign-in.

let env: AuthEnv;
let app: TestApp;
const ORIGIN = 'http://localhost:3000';

beforeAll(async () => {
  // A known MASTER_KEY (on SQLite too): the last test opens a session the way the server does, with a moved clock.
  env = await startAuthServer({ MASTER_KEY: randomBytes(32).toString('base64') });
  app = await createApp(env.server, { args: ['--allowed-origin', ORIGIN, '--verification-method', 'code'] });
});
afterAll(async () => {
  await env?.stop();
});

const as = (token: string) => ({ publishableKey: app.publishable_key, bearer: token });
const signIn = (email: string, password: string) => api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password } });
const count = async (table: string, userId: string) =>
  Number((await queryDatabase(env.server.databaseUrl, `select count(*) as n from ${table} where user_id = '${userId}'`))[0]!.n);

/**
 * The intruder's hold on an account made server-side with the owner's address (unverified, and it may
 * sign in): a session, a confirmed TOTP factor with its recovery codes, a passkey and a pending MFA
 * challenge. Enrollment is refused while the address is unproven; the factors are the ones an earlier
 * release let the intruder add (the address is marked verified for the enrollment only, as that release
 * did not ask).
 */
async function intrudedAccount() {
  const email = uniqueEmail('claimed');
  const intruderPassword = 'the intruder knows this';
  const created = await api(env.server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email, password: intruderPassword } });
  expect(created.status).toBe(201);
  const userId = created.body.id as string;
  const session = await signIn(email, intruderPassword);
  expect(session.status).toBe(200);
  const intruder = session.body.access_token as string;

  const totpRefused = await api(env.server, 'POST', '/v1/me/factors/totp', { ...as(intruder), body: {} });
  expect(totpRefused.status).toBe(403);
  expect(totpRefused.body.detail).toMatch(/verify your email address before adding a second factor/);
  const passkeyRefused = await api(env.server, 'POST', '/v1/me/passkeys/options', as(intruder));
  expect(passkeyRefused.status).toBe(403);
  expect(passkeyRefused.body.detail).toMatch(/verify your email address/);
  expect(await count('mfa_factors', userId)).toBe(0);

  await execDatabase(env.server.databaseUrl, `update users set email_verified = 1 where id = '${userId}'`);
  const totp = await enrollTotp(env.server, app, intruder);
  const now = new Date().toISOString();
  await execDatabase(
    env.server.databaseUrl,
    `insert into mfa_factors (id, app_id, user_id, type, status, credential_id, public_key, sign_count, attempts, created_at, updated_at)
     values ('${randomUUID()}', '${app.app_id}', '${userId}', 'webauthn', 'verified', 'intruder-credential-${userId}', 'pQ', 0, 0, '${now}', '${now}')`,
  );
  await execDatabase(env.server.databaseUrl, `update users set email_verified = 0 where id = '${userId}'`);
  const mfaToken = await passwordChallenge(env.server, app, email, intruderPassword);
  // The enrollment's notice went to the owner's inbox: the next email there is the owner's own.
  await env.sink.waitFor(email, { count: 1 });
  expect(await count('mfa_factors', userId)).toBe(2);
  return { email, userId, intruderPassword, intruder, totp, mfaToken };
}

/** Nothing of the intruder's is left, and nothing stands between the owner and the account. */
async function expectIntruderGone(held: Awaited<ReturnType<typeof intrudedAccount>>, owner: string) {
  expect(claimsOf(owner)).toMatchObject({ sub: held.userId, aal: 'aal1' });
  expect((await api(env.server, 'GET', '/v1/me/factors', as(owner))).body).toEqual({ factors: [], recovery_codes_remaining: 0 });
  for (const table of ['mfa_factors', 'mfa_recovery_codes', 'mfa_challenges', 'webauthn_challenges']) expect(await count(table, held.userId)).toBe(0);
  // The pending challenge, the intruder's session and password are all dead.
  expect((await verifyMfa(env.server, app, { mfa_token: held.mfaToken, code: codeAt(held.totp.secret, 1) })).status).toBe(401);
  expect((await api(env.server, 'GET', '/v1/me', as(held.intruder))).status).toBe(401);
  expect((await api(env.server, 'GET', '/v1/me', as(held.totp.accessToken))).status).toBe(401);
  expect((await signIn(held.email, held.intruderPassword)).status).toBe(401);
}

describe('finding 1: second factors do not survive the owner\'s first proof of the address', () => {
  it('a claim by code: the intruder\'s TOTP, passkey, recovery codes and pending challenge go; the owner is asked for no factor', async () => {
    const held = await intrudedAccount();
    const asked = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: held.email } });
    expect(asked.body).toMatchObject({ status: 'verification_sent' });
    const code = await codeFor(env.sink, held.email, 2);
    const claimed = await api(env.server, 'POST', '/v1/verify-code', { publishableKey: app.publishable_key, body: { email: held.email, code } });
    expect(claimed.status).toBe(200);
    expect(claimed.body.mfa_required).toBeUndefined();
    expect(claimed.body.access_token).toBeTruthy();
    await expectIntruderGone(held, claimed.body.access_token);
    // Now verified, the owner may add a factor of their own.
    expect((await api(env.server, 'POST', '/v1/me/factors/totp', { ...as(claimed.body.access_token), body: {} })).status).toBe(201);
  });

  it('a password reset as the first proof: the same', async () => {
    const held = await intrudedAccount();
    expect((await api(env.server, 'POST', '/v1/password_resets', { publishableKey: app.publishable_key, body: { email: held.email } })).status).toBe(200);
    const code = await codeFor(env.sink, held.email, 2);
    const reset = await api(env.server, 'POST', '/v1/password_resets/confirm', {
      publishableKey: app.publishable_key,
      body: { email: held.email, code, new_password: 'the owner chose this one' },
    });
    expect(reset.status).toBe(200);
    expect(reset.body.mfa_required).toBeUndefined();
    await expectIntruderGone(held, reset.body.access_token);
    expect((await signIn(held.email, 'the owner chose this one')).body.access_token).toBeTruthy();
  });
});

describe('finding 2: a pending TOTP enrollment is not confirmed from an aal1 session of an enrolled user', () => {
  it('with another verified factor, confirming needs aal2 (403 aal2_required); the aal2 session may', async () => {
    const user = await verifiedUser(env, app);
    const first = await enrollTotp(env.server, app, user.tokens.access_token);
    // An aal1 session of the enrolled user (a server-issued sign-in token: it used no second factor).
    const issued = await api(env.server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: user.userId, expires_in_seconds: 600 } });
    const aal1 = issued.body.token as string;
    expect(claimsOf(aal1).aal).toBe('aal1');
    const pending = await api(env.server, 'POST', '/v1/me/factors/totp', { ...as(first.accessToken), body: { friendly_name: 'second' } });
    expect(pending.status).toBe(201);
    const path = `/v1/me/factors/${pending.body.factor_id}/verify`;
    const refused = await api(env.server, 'POST', path, { ...as(aal1), body: { code: codeAt(pending.body.totp.secret) } });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/second factor: sign in with it/);
    const [row] = await queryDatabase(env.server.databaseUrl, `select status, attempts from mfa_factors where id = '${pending.body.factor_id}'`);
    expect(row).toMatchObject({ status: 'unverified', attempts: 0 });
    const confirmed = await api(env.server, 'POST', path, { ...as(first.accessToken), body: { code: codeAt(pending.body.totp.secret) } });
    expect(confirmed.status).toBe(200);
  });

  it("the review's repro: an intruder's pending enrollment dies when the owner adds a passkey, and the intruder's session with it", async () => {
    const user = await verifiedUser(env, app);
    const intruder = (await signIn(user.email, user.password)).body.access_token as string;
    const pending = await api(env.server, 'POST', '/v1/me/factors/totp', { ...as(intruder), body: {} });
    expect(pending.status).toBe(201);
    // The owner registers a passkey (a software authenticator's answer to the server's options).
    const options = await api(env.server, 'POST', '/v1/me/passkeys/options', as(user.tokens.access_token));
    const passkey = await api(env.server, 'POST', '/v1/me/passkeys', {
      ...as(user.tokens.access_token),
      body: { challenge_id: options.body.challenge_id, credential: softwareRegistration(options.body.options, ORIGIN) },
    });
    expect(passkey.status).toBe(201);
    expect(await queryDatabase(env.server.databaseUrl, `select id from mfa_factors where id = '${pending.body.factor_id}'`)).toEqual([]);
    expect((await api(env.server, 'GET', '/v1/me', as(intruder))).status).toBe(401);
    const late = await api(env.server, 'POST', `/v1/me/factors/${pending.body.factor_id}/verify`, { ...as(intruder), body: { code: codeAt(pending.body.totp.secret) } });
    expect(late.status).toBe(401);
    expect((await api(env.server, 'GET', '/v1/me/factors', as(passkey.body.access_token))).body.factors).toEqual([expect.objectContaining({ type: 'webauthn' })]);
  });

  it('an enrollment not confirmed within 10 minutes is dead: the right code is refused, nothing is verified', async () => {
    const user = await verifiedUser(env, app);
    const pending = await api(env.server, 'POST', '/v1/me/factors/totp', { ...as(user.tokens.access_token), body: {} });
    expect(pending.status).toBe(201);
    // Eleven minutes go by (the row is aged, as the clock would).
    const started = new Date(Date.now() - 11 * 60 * 1000).toISOString();
    await execDatabase(env.server.databaseUrl, `update mfa_factors set created_at = '${started}' where id = '${pending.body.factor_id}'`);
    const late = await api(env.server, 'POST', `/v1/me/factors/${pending.body.factor_id}/verify`, { ...as(user.tokens.access_token), body: { code: codeAt(pending.body.totp.secret) } });
    expect(late.status).toBe(400);
    expect(late.body.detail).toMatch(/enrollment expired: enroll the factor again/);
    expect(await count('mfa_factors', user.userId)).toBe(1);
    expect((await queryDatabase(env.server.databaseUrl, `select status from mfa_factors where id = '${pending.body.factor_id}'`))[0]).toEqual({ status: 'unverified' });
    expect((await signIn(user.email, user.password)).body.access_token).toBeTruthy();
  });
});

describe('finding 3: once a user has a factor, taking the account over needs aal2', () => {
  it("the first factor signs out the sessions opened before it; an aal1 session may not change the email, the password, others' sessions or delete the account", async () => {
    const user = await verifiedUser(env, app);
    const before = await signIn(user.email, user.password);
    expect(before.status).toBe(200);
    const enrolled = await enrollTotp(env.server, app, user.tokens.access_token);
    // The session opened before the enrollment (the intruder's, in the review) is gone; the enrolling one stays.
    expect((await api(env.server, 'GET', '/v1/me', as(before.body.access_token))).status).toBe(401);
    expect((await api(env.server, 'GET', '/v1/me', as(enrolled.accessToken))).status).toBe(200);

    const issued = await api(env.server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: user.userId, expires_in_seconds: 600 } });
    const aal1 = issued.body.token as string;
    const refusals = [
      await api(env.server, 'POST', '/v1/me/email', { ...as(aal1), body: { new_email: uniqueEmail('intruder') } }),
      await api(env.server, 'POST', '/v1/me/email/confirm', { ...as(aal1), body: { code: '123456' } }),
      await api(env.server, 'POST', '/v1/me/password', { ...as(aal1), body: { current_password: user.password, new_password: 'the intruder picked this' } }),
      await api(env.server, 'POST', '/v1/me/sessions/revoke_others', as(aal1)),
      await api(env.server, 'DELETE', `/v1/me/sessions/${claimsOf(enrolled.accessToken).sid}`, as(aal1)),
      await api(env.server, 'DELETE', '/v1/me', as(aal1)),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/this account has a second factor: sign in with it to/);
    }
    // Nothing changed: the owner's session lives, the password and the address are the owner's.
    expect((await api(env.server, 'GET', '/v1/me', as(enrolled.accessToken))).body.email).toBe(user.email);
    expect((await signIn(user.email, user.password)).body.mfa_required).toBe(true);
    expect(env.sink.messages.filter((m) => m.to.includes('intruder.')).length).toBe(0);
    // The aal1 session may still sign itself out; the aal2 one may change the email.
    expect((await api(env.server, 'POST', '/v1/me/email', { ...as(enrolled.accessToken), body: { new_email: uniqueEmail('moved') } })).status).toBe(200);
    expect((await api(env.server, 'DELETE', `/v1/me/sessions/${claimsOf(aal1).sid}`, as(aal1))).status).toBe(200);
  });
});

describe('finding 4: a recent sign-in is read from auth_time, which a refresh keeps', () => {
  it('a session signed in 11 minutes ago and refreshed now cannot set a password or delete the account; a fresh sign-in can', async () => {
    const email = uniqueEmail('aged');
    const created = await api(env.server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email } });
    expect(created.status).toBe(201);
    // The session opens 11 minutes ago: the server's own session code, with its clock moved back.
    const signedInAt = new Date(Date.now() - 11 * 60 * 1000);
    const deps = createDeps(loadConfig({ ...env.server.env }), createLogger('silent'), { clock: { now: () => signedInAt } });
    let refreshToken: string;
    try {
      const user = (await findUserById(deps.db, app.app_id, created.body.id))!;
      refreshToken = (await startSession(deps, { id: app.app_id, tenantId: app.tenant_id }, user, { amr: ['email'], opening: { method: 'code' } })).refresh_token;
    } finally {
      await deps.close();
    }
    const refreshed = await api(env.server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body: { refresh_token: refreshToken } });
    expect(refreshed.status).toBe(200);
    const claims = claimsOf(refreshed.body.access_token);
    expect(claims.auth_time).toBe(Math.floor(signedInAt.getTime() / 1000));
    expect(claims.iat - claims.auth_time).toBeGreaterThanOrEqual(11 * 60);
    // A second refresh keeps it too.
    const again = await api(env.server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body: { refresh_token: refreshed.body.refresh_token } });
    expect(claimsOf(again.body.access_token).auth_time).toBe(claims.auth_time);
    const token = again.body.access_token as string;

    const setPassword = await api(env.server, 'POST', '/v1/me/password', { ...as(token), body: { new_password: 'set by whoever holds the device' } });
    expect(setPassword.status).toBe(403);
    expect(setPassword.body.detail).toMatch(/sign in again/);
    const deleted = await api(env.server, 'DELETE', '/v1/me', as(token));
    expect(deleted.status).toBe(403);
    expect(deleted.body.detail).toMatch(/sign in again to delete your account/);
    expect((await api(env.server, 'GET', `/v1/users/${created.body.id}`, { bearer: app.secret_key })).status).toBe(200);

    // A sign-in now: auth_time is now (iat, within the second), and the same routes answer 200.
    const issued = await api(env.server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: created.body.id, expires_in_seconds: 600 } });
    const fresh = claimsOf(issued.body.token);
    expect(fresh.iat - fresh.auth_time).toBeLessThanOrEqual(1);
    expect((await api(env.server, 'POST', '/v1/me/password', { ...as(issued.body.token), body: { new_password: 'set by the owner now' } })).status).toBe(200);
    expect((await api(env.server, 'DELETE', '/v1/me', as(issued.body.token))).status).toBe(200);
  });
});
