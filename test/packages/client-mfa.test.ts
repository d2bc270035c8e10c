import { createClient, GatehouseError, MfaRequiredError, memoryStorage, type AuthEvent, type GatehouseClient } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, sharedAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { createApp, type TestApp } from '../helpers/fixtures.js';
import { claimsOf, codeAt } from '../helpers/mfa.js';

// @gatehouse/client's second-factor methods (auth.mfa, docs/mfa.md) in Node against a real Gatehouse:
// enrolling an authenticator app and confirming it (the session's new aal2 token kept as the client keeps
// tokens), the factor list, renaming and removing, new recovery codes, and the refusals a page must show.
// The passkey methods need a browser's WebAuthn: test/browser/example-passkeys.test.ts drives them.

let env: AuthEnv;
let app: TestApp;
const clients: GatehouseClient[] = [];

function client(): GatehouseClient {
  const made = createClient({ url: env.server.url, publishableKey: app.publishable_key, storage: memoryStorage() });
  clients.push(made);
  return made;
}

/** A verified user (made over HTTP) signed in with a password in a fresh client. */
async function signedIn() {
  const user = await verifiedUser(env, app);
  const gatehouse = client();
  await gatehouse.auth.signInWithPassword({ email: user.email, password: user.password });
  return { ...user, gatehouse };
}

/** enrollTotp then confirmTotp with the current code, through the client. */
async function withTotp(gatehouse: GatehouseClient, friendlyName = 'phone') {
  const enrolled = await gatehouse.auth.mfa.enrollTotp({ friendlyName });
  const added = await gatehouse.auth.mfa.confirmTotp({ factorId: enrolled.factor_id, code: codeAt(enrolled.totp.secret) });
  return { enrolled, added, secret: enrolled.totp.secret };
}

beforeAll(async () => {
  env = await sharedAuthServer();
  app = await createApp(env.server, { name: 'Client SDK second factors' });
});

afterAll(async () => {
  for (const made of clients) made.close();
  await env?.stop();
});

describe('40 @gatehouse/client: enrolling and managing second factors', () => {
  it('40 client mfa: enrollTotp answers the secret, its otpauth URI and an SVG QR code; the factor is listed unverified', async () => {
    const { gatehouse, email } = await signedIn();
    expect(await gatehouse.auth.mfa.listFactors()).toEqual({ factors: [], recovery_codes_remaining: 0 });
    const enrolled = await gatehouse.auth.mfa.enrollTotp({ friendlyName: 'my phone' });
    expect(enrolled).toMatchObject({ type: 'totp', status: 'unverified', friendly_name: 'my phone' });
    expect(enrolled.totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrolled.totp.uri).toContain(`otpauth://totp/`);
    expect(decodeURIComponent(enrolled.totp.uri)).toContain(email);
    expect(enrolled.totp.qr_code).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    const listed = await gatehouse.auth.mfa.listFactors();
    expect(listed.factors).toEqual([expect.objectContaining({ factor_id: enrolled.factor_id, type: 'totp', status: 'unverified', friendly_name: 'my phone' })]);
    expect(JSON.stringify(listed)).not.toContain(enrolled.totp.secret);
  });

  it('40 client mfa: confirmTotp answers the factor and 10 recovery codes, and keeps the aal2 token (TOKEN_REFRESHED, same refresh token, refreshes stay aal2)', async () => {
    const { gatehouse, userId } = await signedIn();
    const before = (await gatehouse.auth.getSession())!;
    expect(claimsOf(before.access_token!)).toMatchObject({ aal: 'aal1', amr: ['pwd'] });
    const events: AuthEvent[] = [];
    gatehouse.auth.onAuthStateChange((event) => events.push(event));

    const { enrolled, added } = await withTotp(gatehouse);
    expect(added.factor).toMatchObject({ factor_id: enrolled.factor_id, type: 'totp', status: 'verified', friendly_name: 'phone' });
    expect(added.recovery_codes).toHaveLength(10);
    expect(new Set(added.recovery_codes).size).toBe(10);
    expect(events).toContain('TOKEN_REFRESHED');
    expect(events).not.toContain('SIGNED_OUT');

    const after = (await gatehouse.auth.getSession())!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).toBe(before.refresh_token);
    expect(after.session_id).toBe(before.session_id);
    expect(claimsOf(after.access_token!)).toMatchObject({ sub: userId, sid: before.session_id, aal: 'aal2', amr: ['pwd', 'otp'] });
    // The kept token is the one the next call sends: a route that needs aal2 answers.
    expect(await gatehouse.auth.mfa.renewRecoveryCodes()).toHaveLength(10);
    const refreshed = (await gatehouse.auth.refreshSession())!;
    expect(claimsOf(refreshed.access_token!)).toMatchObject({ aal: 'aal2' });
    expect(await gatehouse.auth.mfa.listFactors()).toMatchObject({ factors: [expect.objectContaining({ status: 'verified' })], recovery_codes_remaining: 10 });
  });

  it('40 client mfa: a wrong first code is a GatehouseError 400 and the factor stays unverified', async () => {
    const { gatehouse } = await signedIn();
    const enrolled = await gatehouse.auth.mfa.enrollTotp();
    const wrong = codeAt(enrolled.totp.secret) === '000000' ? '111111' : '000000';
    const refused = await gatehouse.auth.mfa.confirmTotp({ factorId: enrolled.factor_id, code: wrong }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GatehouseError);
    expect(refused).toMatchObject({ status: 400 });
    expect(claimsOf((await gatehouse.auth.getSession())!.access_token!)).toMatchObject({ aal: 'aal1' });
    expect((await gatehouse.auth.mfa.listFactors()).factors).toEqual([expect.objectContaining({ status: 'unverified' })]);
  });

  it('40 client mfa: renameFactor answers the renamed factor; removeFactor removes it, and the last verified factor takes the recovery codes', async () => {
    const { gatehouse, email, password } = await signedIn();
    const { enrolled } = await withTotp(gatehouse);
    expect(await gatehouse.auth.mfa.renameFactor({ factorId: enrolled.factor_id, friendlyName: 'work phone' })).toMatchObject({ factor_id: enrolled.factor_id, friendly_name: 'work phone' });
    expect((await gatehouse.auth.mfa.listFactors()).factors[0]?.friendly_name).toBe('work phone');
    await gatehouse.auth.mfa.removeFactor(enrolled.factor_id);
    expect(await gatehouse.auth.mfa.listFactors()).toEqual({ factors: [], recovery_codes_remaining: 0 });
    // No factor left: a password signs in again without a second step.
    expect((await client().auth.signInWithPassword({ email, password })).user_id).toBeTruthy();
  });

  it('40 client mfa: renewRecoveryCodes makes a new set; an old code is refused at sign-in, a new one signs in (amr recovery)', async () => {
    const { gatehouse, email, password } = await signedIn();
    const { added } = await withTotp(gatehouse);
    const renewed = await gatehouse.auth.mfa.renewRecoveryCodes();
    expect(renewed).toHaveLength(10);
    expect(renewed.some((code) => added.recovery_codes.includes(code))).toBe(false);

    const fresh = client();
    const challenge = (await fresh.auth.signInWithPassword({ email, password }).catch((error: unknown) => error)) as MfaRequiredError;
    expect(challenge).toBeInstanceOf(MfaRequiredError);
    await expect(fresh.auth.verifyMfa({ mfaToken: challenge.mfaToken, recoveryCode: added.recovery_codes[0]! })).rejects.toMatchObject({ status: 400 });
    const session = await fresh.auth.verifyMfa({ mfaToken: challenge.mfaToken, recoveryCode: renewed[0]! });
    expect(claimsOf(session.access_token!)).toMatchObject({ aal: 'aal2', amr: ['pwd', 'recovery'] });
    expect((await fresh.auth.mfa.listFactors()).recovery_codes_remaining).toBe(9);
  });

  it("40 client mfa: a session signed in before the first factor was added is signed out by it: remove, new codes, another enrollment answer the server's 401 detail", async () => {
    const { gatehouse, email, password } = await signedIn();
    const older = client();
    await older.auth.signInWithPassword({ email, password }); // aal1: the account had no factor yet
    const { enrolled } = await withTotp(gatehouse);

    // The first factor revokes every other session (docs/mfa.md): an aal1 session must not outlive it.
    const removal = await older.auth.mfa.removeFactor(enrolled.factor_id).catch((error: unknown) => error);
    expect(removal).toBeInstanceOf(GatehouseError);
    expect(removal).toMatchObject({ status: 401, detail: 'session is revoked or expired' });
    await expect(older.auth.mfa.renewRecoveryCodes()).rejects.toMatchObject({ status: 401 });
    await expect(older.auth.mfa.enrollTotp()).rejects.toMatchObject({ status: 401 });
    // The enrolling session keeps its factor.
    expect((await gatehouse.auth.mfa.listFactors()).factors).toEqual([expect.objectContaining({ factor_id: enrolled.factor_id, status: 'verified' })]);
  });

  it('40 client mfa: confirmPasswordReset of an account with a second factor throws MfaRequiredError (the password is changed); verifyMfa signs in with the new one', async () => {
    const { gatehouse, email } = await signedIn();
    const { secret } = await withTotp(gatehouse);
    await env.sink.waitFor(email, { count: 2 }); // the sign-up's code and the enrollment's notice: the reset's is the third
    const fresh = client();
    await fresh.auth.resetPasswordForEmail(email);
    const refused = await fresh.auth.confirmPasswordReset({ email, code: await codeFor(env.sink, email, 3), password: 'a reset password' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MfaRequiredError);
    expect(await fresh.auth.getSession()).toBeNull();
    const session = await fresh.auth.verifyMfa({ mfaToken: (refused as MfaRequiredError).mfaToken, code: codeAt(secret, 1) });
    expect(claimsOf(session.access_token!)).toMatchObject({ aal: 'aal2', amr: ['email', 'otp'] });
    await expect(client().auth.signInWithPassword({ email, password: 'a reset password' })).rejects.toBeInstanceOf(MfaRequiredError);
  });

  it("40 client mfa: another user's factor id is 404 to rename and to remove", async () => {
    const owner = await signedIn();
    const { enrolled } = await withTotp(owner.gatehouse);
    const stranger = await signedIn();
    await expect(stranger.gatehouse.auth.mfa.renameFactor({ factorId: enrolled.factor_id, friendlyName: 'mine now' })).rejects.toMatchObject({ status: 404 });
    await expect(stranger.gatehouse.auth.mfa.removeFactor(enrolled.factor_id)).rejects.toMatchObject({ status: 404 });
    expect((await owner.gatehouse.auth.mfa.listFactors()).factors[0]?.friendly_name).toBe('phone');
  });
});
