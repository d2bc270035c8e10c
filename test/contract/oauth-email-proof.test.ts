import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, linkFor, setCookies, signUp, uniqueEmail } from '../helpers/accounts.js';
import { execDatabase, queryDatabase } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { configureApple, configureGoogle, errorOf, me, newAccount, RETURN, SITE, signInWith, startOAuthEnv, type OAuthEnv } from '../helpers/oauth.js';

// Issue 35, finding 1 (docs/oauth.md and docs/api.md and docs/storage.md): a provider identity whose ID token does not
// say the email is verified never makes or links a user; proving an account's email by code or link
// removes every OAuth identity linked to it before the proof, so whoever linked a subject to an address
// they did not own cannot sign in to the account once its owner has claimed it.

let o: OAuthEnv;
/** An app whose emails carry both a code and a link (the claim below follows the link). */
let both: TestApp;
beforeAll(async () => {
  o = await startOAuthEnv(1);
  both = await createApp(o.server, { name: 'OAuth both', args: ['--allowed-origin', SITE, '--verification-method', 'both'] });
  await configureGoogle(o.server, both, o.apps[0].google);
  await configureApple(o.server, both, o.apps[0].apple);
});
afterAll(async () => {
  await o?.stop();
});

const app = () => o.apps[0].app;
const usersWith = async (a: TestApp, email: string) =>
  (await api(o.server, 'GET', `/v1/users?email=${encodeURIComponent(email)}`, { bearer: a.secret_key })).body.users as { id: string; email_verified: boolean }[];
const identitiesOf = (userId: string) => queryDatabase(o.server.databaseUrl, `SELECT provider, subject FROM oauth_identities WHERE user_id = '${userId}'`);

/**
 * What the earlier version let an attacker leave behind: their provider subject linked to a user of an
 * address they do not own (it made the user from an unverified provider email). Written straight into
 * the database, since the fixed server no longer makes such a link.
 */
async function linkAsBefore(a: TestApp, provider: 'google' | 'apple', subject: string, userId: string, email: string) {
  const now = new Date().toISOString();
  await execDatabase(
    o.server.databaseUrl,
    `INSERT INTO oauth_identities (app_id, provider, subject, user_id, email, name, created_at, updated_at)
     VALUES ('${a.app_id}', '${provider}', '${subject}', '${userId}', '${email}', NULL, '${now}', '${now}')`,
  );
}

describe('35.1 OAuth: an unverified provider email', () => {
  const cases: [string, 'google' | 'apple', unknown][] = [
    ['Google, email_verified false', 'google', false],
    ['Google, email_verified absent', 'google', undefined],
    ['Apple, email_verified "false"', 'apple', 'false'],
  ];
  for (const [name, provider, flag] of cases) {
    it(`35.1 ${name} → ?error=email_not_verified, no session, no user made`, async () => {
      const account = newAccount(o[provider], { email_verified: flag as boolean });
      const { callback, browser } = await signInWith(o, app(), provider, account.sub);
      expect(errorOf(callback)).toBe('email_not_verified');
      expect(setCookies(callback.headers).__session).toBeUndefined();
      expect((await me(o, browser, app())).status).toBe(401);
      expect(await usersWith(app(), account.email)).toEqual([]);
    });
  }

  it("35.1 the issue's takeover: the attacker's unverified identity neither holds the email nor gets into the owner's account", async () => {
    const email = uniqueEmail('victim');
    const attacker = newAccount(o.google, { email, email_verified: false });
    expect(errorOf((await signInWith(o, app(), 'google', attacker.sub)).callback)).toBe('email_not_verified');
    // The owner's sign-up is not refused (no user holds the address), and the owner proves the inbox.
    const signup = await signUp(o.server, app(), { email, password: 'correct horse battery' });
    expect(signup.status, JSON.stringify(signup.body)).toBe(200);
    const code = await codeFor(o.env.sink, email);
    expect((await api(o.server, 'POST', '/v1/verify-code', { publishableKey: app().publishable_key, body: { email, code } })).status).toBe(200);
    // The attacker's subject, again: still refused, and linked to nothing.
    const again = await signInWith(o, app(), 'google', attacker.sub);
    expect(errorOf(again.callback)).toBe('email_not_verified');
    expect((await me(o, again.browser, app())).status).toBe(401);
    expect(await identitiesOf(signup.body.user_id)).toEqual([]);
    expect(await usersWith(app(), email)).toMatchObject([{ id: signup.body.user_id, email_verified: true }]);
  });

  it('13 OAuth: an unverified email (Apple "false") does not link into an existing account of that email either', async () => {
    const email = uniqueEmail('held');
    const created = await api(o.server, 'POST', '/v1/users', { bearer: app().secret_key, body: { email } });
    expect(created.status).toBe(201);
    const account = newAccount(o.apple, { email, email_verified: 'false' as unknown as boolean });
    expect(errorOf((await signInWith(o, app(), 'apple', account.sub)).callback)).toBe('email_not_verified');
    expect(await identitiesOf(created.body.id)).toEqual([]);
  });
});

describe('35.1 OAuth: proving the email removes the identities linked before the proof', () => {
  it('35.1 a sign-up verified by code: the subject linked before no longer signs in to the account', async () => {
    const email = uniqueEmail('owner');
    const signup = await signUp(o.server, app(), { email, password: 'correct horse battery' });
    expect(signup.status).toBe(200);
    const userId = signup.body.user_id as string;
    // The attacker's provider account now shows an address of their own, verified: only the link leads in.
    const attacker = newAccount(o.google);
    await linkAsBefore(app(), 'google', attacker.sub, userId, email);
    const before = await signInWith(o, app(), 'google', attacker.sub);
    expect((await me(o, before.browser, app())).json.user_id).toBe(userId); // the hazard, before the proof

    const code = await codeFor(o.env.sink, email);
    expect((await api(o.server, 'POST', '/v1/verify-code', { publishableKey: app().publishable_key, body: { email, code } })).status).toBe(200);
    expect(await identitiesOf(userId)).toEqual([]);
    const after = await signInWith(o, app(), 'google', attacker.sub);
    expect(after.callback.location!.href).toBe(RETURN);
    const who = await me(o, after.browser, app());
    expect(who.json.user_id).not.toBe(userId);
    expect(who.json.email).toBe(attacker.email);
  });

  it('35.1 a claim by link (magic-link sign-in of an unverified account): the subject linked before is removed', async () => {
    const email = uniqueEmail('claimed');
    // The kind of account the earlier version made from an unverified provider email: unverified, no password.
    const created = await api(o.server, 'POST', '/v1/users', { bearer: both.secret_key, body: { email } });
    expect(created.status).toBe(201);
    const userId = created.body.id as string;
    const attacker = newAccount(o.apple);
    await linkAsBefore(both, 'apple', attacker.sub, userId, email);
    expect((await me(o, (await signInWith(o, both, 'apple', attacker.sub)).browser, both)).json.user_id).toBe(userId);

    const claim = await api(o.server, 'POST', '/v1/signins', { publishableKey: both.publishable_key, body: { email } });
    expect(claim.body).toMatchObject({ status: 'verification_sent', user_id: userId });
    const link = await linkFor(o.env.sink, email);
    const followed = await api(o.server, 'GET', `${link.pathname}${link.search}`);
    expect(followed.status, JSON.stringify(followed.body)).toBe(302);
    expect(await identitiesOf(userId)).toEqual([]);
    const after = await signInWith(o, both, 'apple', attacker.sub);
    expect((await me(o, after.browser, both)).json.user_id).not.toBe(userId);
    expect(await usersWith(both, email)).toMatchObject([{ id: userId, email_verified: true }]);
  });

  it("35.1 a verified provider email linking into the unverified account (the owner's claim) removes the links made before it", async () => {
    const email = uniqueEmail('linked');
    const created = await api(o.server, 'POST', '/v1/users', { bearer: app().secret_key, body: { email } });
    const userId = created.body.id as string;
    const attacker = newAccount(o.apple);
    await linkAsBefore(app(), 'apple', attacker.sub, userId, email);
    const owner = newAccount(o.google, { email });
    const signedIn = await signInWith(o, app(), 'google', owner.sub);
    expect((await me(o, signedIn.browser, app())).json).toMatchObject({ user_id: userId, email_verified: true });
    expect(await identitiesOf(userId)).toEqual([{ provider: 'google', subject: owner.sub }]);
    expect((await me(o, (await signInWith(o, app(), 'apple', attacker.sub)).browser, app())).json.user_id).not.toBe(userId);
  });
});
