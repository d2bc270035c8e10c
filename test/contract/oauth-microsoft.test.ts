import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies, startAuthServer, uniqueEmail, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { queryDatabase } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { claimsOf, codeAt, enrollTotp, verifyMfa } from '../helpers/mfa.js';
import { OAuthBrowser } from '../helpers/oauth-browser.js';
import { authorize, errorOf, me, RETURN, signInWith, SITE } from '../helpers/oauth.js';
import { createIssuer, type TestIssuer } from '../helpers/oidc-provider.js';

// docs/oauth.md, Microsoft: a real OpenID provider (oidc-provider) issuing Entra-shaped tokens at
// {authority}/{tid}/v2.0, with tid, oid and xms_edov claims, and Entra's multi-tenant discovery
// documents (common, organizations) whose issuer is the template {authority}/{tenantid}/v2.0.
// Each token is checked against the issuer of its own tid; a tenant-specific app takes only its
// tenant's tokens; an email without xms_edov (or email_verified) never creates or links a user.

const TID = randomUUID();
const OTHER_TID = randomUUID();
let env: AuthEnv;
let entra: TestIssuer;
let A: TestApp; // tenant: TID
let B: TestApp; // tenant: common
const o = () => ({ server: env.server });
const CLIENTS = { A: { clientId: 'ms-client-a', clientSecret: `ms-secret-a-${randomUUID()}` }, B: { clientId: 'ms-client-b', clientSecret: `ms-secret-b-${randomUUID()}` } };
const client = (app: TestApp) => (app === A ? CLIENTS.A : CLIENTS.B);

beforeAll(async () => {
  entra = await createIssuer('microsoft', [CLIENTS.A, CLIENTS.B], { path: `/${TID}/v2.0` });
  env = await startAuthServer({ MICROSOFT_AUTHORITY: entra.base });
  await entra.start(`${env.server.url}/v1/oauth/microsoft/callback`);
  A = await createApp(env.server, { name: 'Microsoft app A', args: ['--allowed-origin', SITE] });
  B = await createApp(env.server, { name: 'Microsoft app B', args: ['--allowed-origin', SITE] });
  for (const [app, tenant] of [[A, TID], [B, 'common']] as const) {
    const res = await api(env.server, 'PUT', '/v1/oauth/providers/microsoft', { bearer: app.secret_key, body: { client_id: client(app).clientId, client_secret: client(app).clientSecret, tenant } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
});
afterAll(async () => {
  await env?.stop();
  await entra?.stop();
});

let n = 0;
function account(fields: { xms_edov?: boolean; email_verified?: boolean; tid?: string } = {}) {
  const sub = `ms-${Date.now().toString(36)}-${n++}`;
  const claims = { tid: fields.tid ?? TID, oid: randomUUID(), email: uniqueEmail('entra'), name: 'Entra Person', ...fields };
  entra.accounts.set(sub, claims);
  return { sub, ...claims };
}

/** Re-signs the next ID token with its tid (and, when asked, its issuer) moved to another tenant. */
function nextTokenOfTenant(tid: string, issuerToo: boolean) {
  entra.tamperNextIdToken({ claims: (c) => ({ ...c, tid, ...(issuerToo ? { iss: `${entra.base}/${tid}/v2.0` } : {}) }) });
}

const usersWith = async (app: TestApp, email: string) => (await api(env.server, 'GET', `/v1/users?email=${encodeURIComponent(email)}`, { bearer: app.secret_key })).body.users as { id: string }[];

describe('Microsoft: configuration', () => {
  it('PUT shows the tenant and the secret as ****; a bad tenant is 400; the public list names it "Microsoft"', async () => {
    const list = await api(env.server, 'GET', '/v1/oauth/providers', { bearer: A.secret_key });
    expect(list.body.providers).toEqual([expect.objectContaining({ provider: 'microsoft', display_name: 'Microsoft', tenant: TID, client_secret: '****', scopes: ['openid', 'email', 'profile'] })]);
    for (const tenant of ['', 'not a tenant', 'x/../y', 'common?x=1']) {
      const res = await api(env.server, 'PUT', '/v1/oauth/providers/microsoft', { bearer: A.secret_key, body: { client_id: 'x', client_secret: 'y', tenant } });
      expect(res.status, tenant).toBe(400);
    }
    expect((await api(env.server, 'PUT', '/v1/oauth/providers/microsoft', { bearer: A.secret_key, body: { client_id: 'x', client_secret: 'y' } })).status).toBe(400);
    expect((await api(env.server, 'GET', '/v1/oauth/providers', { bearer: A.secret_key })).body.providers[0].client_id).toBe(client(A).clientId);
    expect((await api(env.server, 'GET', '/v1/oauth/providers/public', { publishableKey: B.publishable_key })).body).toEqual({ providers: [{ provider: 'microsoft', display_name: 'Microsoft' }] });
  });
});

describe('Microsoft: the round trip, per tenant', () => {
  it('a tenant app: authorize at {authority}/{tid}/v2.0 with PKCE, state and nonce; xms_edov true → a verified user', async () => {
    const person = account({ xms_edov: true });
    const start = await authorize(env.server, A, 'microsoft');
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const url = new URL(start.body.authorization_url);
    expect(url.href.startsWith(`${entra.base}/${TID}/v2.0/`)).toBe(true);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: client(A).clientId, scope: 'openid email profile', code_challenge_method: 'S256', redirect_uri: `${env.server.url}/v1/oauth/microsoft/callback` });
    expect(url.searchParams.get('nonce')!.length).toBeGreaterThanOrEqual(32);
    const callback = await start.browser.signInAtProvider(url.href, person.sub, `${env.server.url}/v1/oauth/microsoft/callback`);
    expect(callback.status, callback.text).toBe(302);
    expect(callback.location!.href).toBe(RETURN);
    expect((await me(o(), start.browser, A)).json).toMatchObject({ email: person.email, email_verified: true });
  });

  it('a token of another tid refused by a tenant app (re-signed by the provider, issuer moved too) → ?error=invalid_id_token', async () => {
    const person = account({ xms_edov: true });
    nextTokenOfTenant(OTHER_TID, true);
    const { callback, browser } = await signInWith(o(), A, 'microsoft', person.sub);
    expect(errorOf(callback)).toBe('invalid_id_token');
    expect((await me(o(), browser, A)).status).toBe(401);
    expect(await usersWith(A, person.email)).toHaveLength(0);
    // The same re-signed token of another tenant is fine for a common app: the refusal above is the tenant's.
    const elsewhere = account({ xms_edov: true });
    nextTokenOfTenant(OTHER_TID, true);
    const accepted = await signInWith(o(), B, 'microsoft', elsewhere.sub);
    expect(accepted.callback.location!.href).toBe(RETURN);
  });

  it('common: the issuer is checked against the token\'s own tid; a tid that does not match its issuer is refused', async () => {
    const person = account({ xms_edov: true });
    const ok = await signInWith(o(), B, 'microsoft', person.sub);
    expect(ok.callback.location!.href).toBe(RETURN);
    const other = account({ xms_edov: true });
    nextTokenOfTenant(OTHER_TID, false);
    const refused = await signInWith(o(), B, 'microsoft', other.sub);
    expect(errorOf(refused.callback)).toBe('invalid_id_token');
    expect(await usersWith(B, other.email)).toHaveLength(0);
  });

  it('the subject is tid + oid: the same oid signs in to the same user after its email changed', async () => {
    const person = account({ xms_edov: true });
    const first = await signInWith(o(), A, 'microsoft', person.sub);
    const userId = (await me(o(), first.browser, A)).json.user_id;
    entra.accounts.set(person.sub, { ...entra.accounts.get(person.sub)!, email: uniqueEmail('moved') });
    const second = await signInWith(o(), A, 'microsoft', person.sub);
    expect((await me(o(), second.browser, A)).json.user_id).toBe(userId);
  });
});

describe('Microsoft: the nOAuth rule', () => {
  it('an email claim without xms_edov never creates a user → ?error=email_not_verified', async () => {
    const person = account();
    const { callback } = await signInWith(o(), A, 'microsoft', person.sub);
    expect(errorOf(callback)).toBe('email_not_verified');
    expect(setCookies(callback.headers).__session).toBeUndefined();
    expect(await usersWith(A, person.email)).toHaveLength(0);
  });

  it("an email claim without xms_edov never links to the existing user holding that address (nOAuth): the victim's account stays its own", async () => {
    const victim = await verifiedUser(env, A);
    const attacker = account({ xms_edov: false });
    entra.accounts.set(attacker.sub, { ...entra.accounts.get(attacker.sub)!, email: victim.email });
    const { callback, browser } = await signInWith(o(), A, 'microsoft', attacker.sub);
    expect(errorOf(callback)).toBe('email_not_verified');
    expect((await me(o(), browser, A)).status).toBe(401);
    expect(await queryDatabase(env.server.databaseUrl, `SELECT provider FROM oauth_identities WHERE user_id = '${victim.userId}'`)).toEqual([]);
  });

  it('email_verified true vouches like xms_edov: it links into the existing verified user', async () => {
    const holder = await verifiedUser(env, A);
    const person = account({ email_verified: true });
    entra.accounts.set(person.sub, { ...entra.accounts.get(person.sub)!, email: holder.email });
    const { callback, browser } = await signInWith(o(), A, 'microsoft', person.sub);
    expect(callback.location!.href).toBe(RETURN);
    expect((await me(o(), browser, A)).json.email).toBe(holder.email);
    expect(await usersWith(A, holder.email)).toHaveLength(1);
  });
});

describe('Microsoft: browser binding, MFA, isolation', () => {
  it('the callback in another browser → ?error=invalid_state', async () => {
    const person = account({ xms_edov: true });
    const starter = new OAuthBrowser();
    const start = await authorize(env.server, A, 'microsoft', RETURN, starter);
    const pending = await starter.walkProvider(start.body.authorization_url, person.sub, `${env.server.url}/v1/oauth/microsoft/callback`);
    expect(errorOf(await new OAuthBrowser().send(pending))).toBe('invalid_state');
    expect((await starter.send(pending)).location!.href).toBe(RETURN);
  });

  it('a user with a second factor gets ?mfa_token= and finishes with TOTP', async () => {
    const person = account({ xms_edov: true });
    const first = await signInWith(o(), A, 'microsoft', person.sub);
    const userId = (await me(o(), first.browser, A)).json.user_id as string;
    const minted = await api(env.server, 'POST', '/v1/sign_in_tokens', { bearer: A.secret_key, body: { user_id: userId } });
    const totp = await enrollTotp(env.server, A, minted.body.token);
    const again = await signInWith(o(), A, 'microsoft', person.sub);
    const mfaToken = again.callback.location!.searchParams.get('mfa_token');
    expect(mfaToken).toMatch(/.{20,}/);
    const done = await verifyMfa(env.server, A, { mfa_token: mfaToken, code: codeAt(totp.secret, 1) });
    expect(claimsOf(done.body.access_token)).toMatchObject({ sub: userId, amr: ['oauth', 'otp'] });
  });

  it("another app's secret key: its DELETE of A's provider is 404 when it has none; A's state with B's publishable key is refused", async () => {
    const c = await createApp(env.server, { name: 'Microsoft app C', args: ['--allowed-origin', SITE] });
    expect((await api(env.server, 'DELETE', '/v1/oauth/providers/microsoft', { bearer: c.secret_key })).status).toBe(404);
    expect((await api(env.server, 'GET', '/v1/oauth/providers', { bearer: A.secret_key })).body.providers).toHaveLength(1);
    const person = account({ xms_edov: true });
    const browser = new OAuthBrowser();
    const start = await authorize(env.server, A, 'microsoft', RETURN, browser);
    const pending = await browser.walkProvider(start.body.authorization_url, person.sub, `${env.server.url}/v1/oauth/microsoft/callback`);
    expect(errorOf(await browser.request('GET', pending.url, { headers: { 'x-publishable-key': B.publishable_key } }))).toBe('invalid_state');
  });
});
