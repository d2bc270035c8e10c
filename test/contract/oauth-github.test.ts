import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies, startAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { newGitHubAccount, startGitHubStandIn, type GitHubStandIn } from '../helpers/github-standin.js';
import { claimsOf, codeAt, enrollTotp, verifyMfa } from '../helpers/mfa.js';
import { OAuthBrowser } from '../helpers/oauth-browser.js';
import { authorize, errorOf, me, RETURN, signInWith, SITE } from '../helpers/oauth.js';

// docs/oauth.md, GitHub: OAuth 2.0 against a stand-in with GitHub's real API shapes (the authorize page,
// the access_token endpoint's 200-with-error answers, /user's numeric id, /user/emails' primary and
// verified flags). The subject is the numeric id; the email is the primary address only when verified.

let env: AuthEnv;
let gh: GitHubStandIn;
let A: TestApp;
let B: TestApp;
const o = () => ({ server: env.server });
const clientOf = (app: TestApp) => ({ id: `Iv1.${app.app_id.slice(0, 12)}`, secret: `ghsecret-${app.app_id}` });

beforeAll(async () => {
  gh = await startGitHubStandIn();
  env = await startAuthServer(gh.env);
  A = await createApp(env.server, { name: 'GitHub app A', args: ['--allowed-origin', SITE] });
  B = await createApp(env.server, { name: 'GitHub app B', args: ['--allowed-origin', SITE] });
  for (const app of [A, B]) gh.clients.set(clientOf(app).id, clientOf(app).secret);
  const res = await api(env.server, 'PUT', '/v1/oauth/providers/github', { bearer: A.secret_key, body: { client_id: clientOf(A).id, client_secret: clientOf(A).secret } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
});
afterAll(async () => {
  await env?.stop();
  await gh?.stop();
});

const usersWith = async (email: string) => (await api(env.server, 'GET', `/v1/users?email=${encodeURIComponent(email)}`, { bearer: A.secret_key })).body.users as { id: string }[];

describe('GitHub: configuration', () => {
  it('PUT answers the configuration with the secret as ****, user:email always among the scopes; the lists show it', async () => {
    const put = await api(env.server, 'PUT', '/v1/oauth/providers/github', { bearer: B.secret_key, body: { client_id: clientOf(B).id, client_secret: clientOf(B).secret, scopes: ['read:org'] } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ provider: 'github', display_name: 'GitHub', client_id: clientOf(B).id, client_secret: '****', scopes: ['user:email', 'read:org'] });
    expect(JSON.stringify(put.body)).not.toContain(clientOf(B).secret);
    const list = await api(env.server, 'GET', '/v1/oauth/providers', { bearer: A.secret_key });
    expect(list.body.providers).toEqual([expect.objectContaining({ provider: 'github', client_id: clientOf(A).id, client_secret: '****', scopes: ['read:user', 'user:email'] })]);
    const pub = await api(env.server, 'GET', '/v1/oauth/providers/public', { publishableKey: A.publishable_key });
    expect(pub.status).toBe(200);
    expect(pub.body).toEqual({ providers: [{ provider: 'github', display_name: 'GitHub' }] });
    // Restore B to the default scopes for the sign-ins below.
    await api(env.server, 'PUT', '/v1/oauth/providers/github', { bearer: B.secret_key, body: { client_id: clientOf(B).id, client_secret: clientOf(B).secret } });
  });

  it('bad input is 400 and changes nothing; no key is 401, a publishable key 403 on the Secret routes', async () => {
    // (A provider that exists keeps its secret when an update leaves it out, docs/oauth.md: an empty one is refused.)
    for (const body of [{ client_id: 'x', client_secret: '' }, { client_id: 'x', client_secret: 'y', tenant: 'common' }, { client_id: 'has space', client_secret: 'y' }]) {
      const res = await api(env.server, 'PUT', '/v1/oauth/providers/github', { bearer: A.secret_key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toMatch(/validation_failed|unknown_field/);
    }
    expect((await api(env.server, 'GET', '/v1/oauth/providers', { bearer: A.secret_key })).body.providers[0].client_id).toBe(clientOf(A).id);
    expect((await api(env.server, 'GET', '/v1/oauth/providers/public', {})).status).toBe(401);
    expect((await api(env.server, 'PUT', '/v1/oauth/providers/github', { bearer: A.publishable_key, body: { client_id: 'x', client_secret: 'y' } })).status).toBe(403);
  });
});

describe('GitHub: the round trip', () => {
  it('authorize sends the browser to GitHub with state and PKCE S256; the callback signs the person in with the primary verified email', async () => {
    const account = newGitHubAccount(gh);
    const start = await authorize(env.server, A, 'github');
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const url = new URL(start.body.authorization_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${gh.base}/login/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: clientOf(A).id, redirect_uri: `${env.server.url}/v1/oauth/github/callback`, scope: 'read:user user:email', code_challenge_method: 'S256' });
    expect(url.searchParams.get('state')!.length).toBeGreaterThanOrEqual(32);
    expect(setCookies(start.headers).__oauth_github.attributes).toMatchObject({ httponly: true, path: '/v1/oauth', samesite: 'Lax' });

    const callback = await start.browser.signInAtProvider(url.href, account.login, `${env.server.url}/v1/oauth/github/callback`);
    expect(callback.status, callback.text).toBe(302);
    expect(callback.location!.href).toBe(RETURN);
    const res = await me(o(), start.browser, A);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ email: account.emails[0].email, email_verified: true });
    // The code was exchanged with the verifier and the exact redirect_uri.
    expect(gh.tokenRequests.at(-1)).toMatchObject({ client_id: clientOf(A).id, redirect_uri: `${env.server.url}/v1/oauth/github/callback` });
    expect(gh.tokenRequests.at(-1)!.code_verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    // The new user's event, written with it: source oauth, the person as its actor.
    const events = await api(env.server, 'GET', `/v1/events?type=user.created&user_id=${res.json.user_id}`, { bearer: A.secret_key });
    expect(events.body.events).toEqual([expect.objectContaining({ type: 'user.created', user_id: res.json.user_id, actor: { type: 'user', id: res.json.user_id }, data: expect.objectContaining({ source: 'oauth' }) })]);
  });

  it('the subject is the numeric id: a renamed login with a new primary email is the same user', async () => {
    const account = newGitHubAccount(gh);
    const first = await signInWith(o(), A, 'github', account.login);
    const userId = (await me(o(), first.browser, A)).json.user_id;
    gh.accounts.delete(account.login);
    const renamed = { ...account, login: `${account.login}-renamed`, emails: [{ email: `${account.login}-new@example.net`, primary: true, verified: true, visibility: null }] };
    gh.accounts.set(renamed.login, renamed as never);
    const second = await signInWith(o(), A, 'github', renamed.login);
    expect(second.callback.location!.href).toBe(RETURN);
    expect((await me(o(), second.browser, A)).json.user_id).toBe(userId);
    expect(await usersWith(`${account.login}-new@example.net`)).toHaveLength(0);
  });

  it('an unverified primary email is refused (?error=email_not_verified, no user), even beside a verified secondary one', async () => {
    const account = newGitHubAccount(gh, { verified: false });
    expect(account.emails[1].verified).toBe(true);
    const { callback, browser } = await signInWith(o(), A, 'github', account.login);
    expect(errorOf(callback)).toBe('email_not_verified');
    expect(setCookies(callback.headers).__session).toBeUndefined();
    expect((await me(o(), browser, A)).status).toBe(401);
    expect(await usersWith(account.emails[0].email)).toHaveLength(0);
    expect(await usersWith(account.emails[1].email)).toHaveLength(0);
  });

  it('no primary address at all → ?error=email_not_verified', async () => {
    const account = newGitHubAccount(gh, { emails: [] });
    const { callback } = await signInWith(o(), A, 'github', account.login);
    expect(errorOf(callback)).toBe('email_not_verified');
  });

  it('the person cancels at GitHub → ?error=access_denied; GitHub down at the callback → ?error=provider_unavailable', async () => {
    const denied = await signInWith(o(), A, 'github', 'deny');
    expect(errorOf(denied.callback)).toBe('access_denied');
    const account = newGitHubAccount(gh);
    const browser = new OAuthBrowser();
    const start = await authorize(env.server, A, 'github', RETURN, browser);
    const pending = await browser.walkProvider(start.body.authorization_url, account.login, `${env.server.url}/v1/oauth/github/callback`);
    gh.down = true;
    try {
      expect(errorOf(await browser.send(pending))).toBe('provider_unavailable');
    } finally {
      gh.down = false;
    }
  });

  it('a tampered code → ?error=token_exchange_failed (GitHub answers 200 {error: bad_verification_code})', async () => {
    const account = newGitHubAccount(gh);
    const browser = new OAuthBrowser();
    const start = await authorize(env.server, A, 'github', RETURN, browser);
    const pending = await browser.walkProvider(start.body.authorization_url, account.login, `${env.server.url}/v1/oauth/github/callback`);
    pending.url.searchParams.set('code', 'not-a-code');
    expect(errorOf(await browser.send(pending))).toBe('token_exchange_failed');
  });
});

describe('GitHub: the browser binding, the MFA step, isolation', () => {
  it('the callback opened in another browser → ?error=invalid_state, nobody signed in; the starter then completes it', async () => {
    const account = newGitHubAccount(gh);
    const starter = new OAuthBrowser();
    const start = await authorize(env.server, A, 'github', RETURN, starter);
    const pending = await starter.walkProvider(start.body.authorization_url, account.login, `${env.server.url}/v1/oauth/github/callback`);
    const victim = new OAuthBrowser();
    const refused = await victim.send(pending);
    expect(errorOf(refused)).toBe('invalid_state');
    expect(setCookies(refused.headers).__session).toBeUndefined();
    expect((await starter.send(pending)).location!.href).toBe(RETURN);
  });

  it('a user with a second factor gets ?mfa_token=, completed with a TOTP code: amr ["oauth","otp"]', async () => {
    const account = newGitHubAccount(gh);
    const first = await signInWith(o(), A, 'github', account.login);
    const userId = (await me(o(), first.browser, A)).json.user_id as string;
    const minted = await api(env.server, 'POST', '/v1/sign_in_tokens', { bearer: A.secret_key, body: { user_id: userId } });
    const totp = await enrollTotp(env.server, A, minted.body.token);
    const again = await signInWith(o(), A, 'github', account.login);
    const mfaToken = again.callback.location!.searchParams.get('mfa_token');
    expect(mfaToken).toMatch(/.{20,}/);
    expect(setCookies(again.callback.headers).__session).toBeUndefined();
    const done = await verifyMfa(env.server, A, { mfa_token: mfaToken, code: codeAt(totp.secret, 1) });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(claimsOf(done.body.access_token)).toMatchObject({ sub: userId, amr: ['oauth', 'otp'] });
  });

  it("another app's keys: its list never shows A's configuration, its DELETE of a provider it lacks is 404, A's state with B's key is refused", async () => {
    const c = await createApp(env.server, { name: 'GitHub app C', args: ['--allowed-origin', SITE] });
    expect((await api(env.server, 'GET', '/v1/oauth/providers', { bearer: c.secret_key })).body).toEqual({ providers: [] });
    expect((await api(env.server, 'GET', '/v1/oauth/providers/public', { publishableKey: c.publishable_key })).body).toEqual({ providers: [] });
    const del = await api(env.server, 'DELETE', '/v1/oauth/providers/github', { bearer: c.secret_key });
    expect(del.status).toBe(404);
    expect((await api(env.server, 'GET', '/v1/oauth/providers', { bearer: A.secret_key })).body.providers).toHaveLength(1);
    expect((await authorize(env.server, c, 'github')).body.code).toBe('provider_not_configured');

    const account = newGitHubAccount(gh);
    const browser = new OAuthBrowser();
    const start = await authorize(env.server, A, 'github', RETURN, browser);
    const pending = await browser.walkProvider(start.body.authorization_url, account.login, `${env.server.url}/v1/oauth/github/callback`);
    const crossed = await browser.request('GET', pending.url, { headers: { 'x-publishable-key': B.publishable_key } });
    expect(errorOf(crossed)).toBe('invalid_state');
  });
});
