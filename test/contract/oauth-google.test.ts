import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies, uniqueEmail } from '../helpers/accounts.js';
import { api, createApp } from '../helpers/fixtures.js';
import { OAuthBrowser } from '../helpers/oauth-browser.js';
import { authorize, configureGoogle, errorOf, me, newAccount, RETURN, signInWith, startOAuthEnv, type OAuthEnv } from '../helpers/oauth.js';

// docs/oauth.md and docs/auth.md and docs/sso.md: the whole browser round trip against a real
// OpenID provider playing Google (query response mode, client_secret_basic), and who the user is.

const PASSWORD = 'correct horse battery';

let o: OAuthEnv;
beforeAll(async () => {
  o = await startOAuthEnv(1);
});
afterAll(async () => {
  await o?.stop();
});

const app = () => o.apps[0].app;
const secret = (method: string, path: string, body?: unknown) => api(o.server, method, path, { bearer: app().secret_key, body });
const usersWith = async (email: string) => (await secret('GET', `/v1/users?email=${encodeURIComponent(email)}`)).body.users as { id: string; email_verified: boolean }[];
/** GET /v1/users' total: the app's kept user count (docs/users.md). */
const usersTotal = async () => (await secret('GET', '/v1/users?limit=1')).body.total as number;
const passwordSignIn = (email: string) =>
  api(o.server, 'POST', '/v1/signins', { publishableKey: app().publishable_key, body: { email, password: PASSWORD, strategy: 'password' } });

describe('4.2 OAuth with Google: the round trip', () => {
  it('new user: authorize → provider login and consent → callback → 302 to redirect_url with __session and __refresh → /v1/me', async () => {
    const account = newAccount(o.google);
    const { callback, browser } = await signInWith(o, app(), 'google', account.sub);
    expect(callback.status, callback.text).toBe(302);
    expect(callback.location!.href).toBe(RETURN);
    expect(callback.headers.get('referrer-policy')).toBe('no-referrer');
    const cookies = setCookies(callback.headers);
    expect(cookies.__session.attributes).toMatchObject({ httponly: true, samesite: 'Lax', path: '/', 'max-age': '900' });
    expect(cookies.__session.attributes.secure).toBeUndefined(); // PUBLIC_BASE_URL is http here
    expect(cookies.__refresh.attributes).toMatchObject({ httponly: true, samesite: 'Lax', path: '/v1/tokens/session' });
    const res = await me(o, browser, app());
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ email: account.email, email_verified: true, is_bot: false });
    // The __refresh cookie rotates the session like any other (from the app's page: an allowed Origin).
    const refreshed = await browser.request('POST', `${o.server.url}/v1/tokens/session`, { headers: { 'x-publishable-key': app().publishable_key, origin: new URL(RETURN).origin } });
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.json.user_id).toBe(res.json.user_id);
  });

  it('the authorization URL carries PKCE S256, state, nonce, the exact redirect_uri and the scopes', async () => {
    const res = await api(o.server, 'GET', `/v1/oauth/google/authorize?redirect_url=${encodeURIComponent(RETURN)}`, { publishableKey: app().publishable_key });
    expect(res.status).toBe(200);
    const url = new URL(res.body.authorization_url);
    expect(url.origin).toBe(o.google.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: o.apps[0].google.clientId,
      response_type: 'code',
      redirect_uri: `${o.server.url}/v1/oauth/google/callback`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')!.length).toBeGreaterThanOrEqual(32);
    expect(url.searchParams.get('nonce')!.length).toBeGreaterThanOrEqual(32);
    expect(url.searchParams.has('response_mode')).toBe(false);
  });

  it('returning user: the same subject signs in again (new browser, changed email at the provider) → the same user', async () => {
    const account = newAccount(o.google);
    const first = await signInWith(o, app(), 'google', account.sub);
    const firstMe = await me(o, first.browser, app());
    o.google.accounts.set(account.sub, { email: uniqueEmail('moved'), email_verified: true });
    const second = await signInWith(o, app(), 'google', account.sub);
    expect(second.callback.location!.href).toBe(RETURN);
    const secondMe = await me(o, second.browser, app());
    expect(secondMe.json.user_id).toBe(firstMe.json.user_id);
    expect(secondMe.json.email).toBe(account.email);
    expect(await usersWith(account.email)).toHaveLength(1);
  });

  it('a user made by OAuth shows in GET /v1/users, its email verified (the provider vouched for it), and in its total', async () => {
    const before = await usersTotal();
    const verified = newAccount(o.google);
    await signInWith(o, app(), 'google', verified.sub);
    expect(await usersWith(verified.email)).toMatchObject([{ email_verified: true }]);
    expect(await usersTotal()).toBe(before + 1);
  });
});

describe('4.2 OAuth with Google: concurrent first sign-ins', () => {
  it('two first sign-ins of one new subject at once (two tabs) → one user, both sessions of it, counted once', async () => {
    const before = await usersTotal();
    const account = newAccount(o.google);
    const tabs = await Promise.all(
      [0, 1].map(async () => {
        const browser = new OAuthBrowser();
        const start = await authorize(o.server, app(), 'google', RETURN, browser);
        return { browser, pending: await browser.walkProvider(start.body.authorization_url, account.sub, `${o.server.url}/v1/oauth/google/callback`) };
      }),
    );
    const callbacks = await Promise.all(tabs.map((t) => t.browser.send(t.pending)));
    expect(callbacks.map((c) => c.location!.href)).toEqual([RETURN, RETURN]);
    const ids = await Promise.all(tabs.map(async (t) => (await me(o, t.browser, app())).json.user_id));
    expect(ids[0]).toBe(ids[1]);
    expect(await usersWith(account.email)).toHaveLength(1);
    expect(await usersTotal()).toBe(before + 1);
  });
});

describe('4.2 OAuth with Google: linking into an existing user (docs/sso.md and docs/oauth.md)', () => {
  it('the provider does not vouch for the email → ?error=email_not_verified, no session, the user unchanged', async () => {
    const email = uniqueEmail('held');
    const created = await secret('POST', '/v1/users', { email, password: PASSWORD });
    expect(created.status).toBe(201);
    const account = newAccount(o.google, { email, email_verified: false });
    const { callback, browser } = await signInWith(o, app(), 'google', account.sub);
    expect(errorOf(callback)).toBe('email_not_verified');
    expect(setCookies(callback.headers).__session).toBeUndefined();
    expect((await me(o, browser, app())).status).toBe(401);
    expect(await usersWith(email)).toMatchObject([{ id: created.body.id, email_verified: false }]);
    expect((await passwordSignIn(email)).status).toBe(200);
  });

  it('a verified email links into the verified user of that email: the same user id', async () => {
    const email = uniqueEmail('owner');
    const created = await secret('POST', '/v1/users', { email });
    // The first link finds the account unverified and verifies it; the second finds it verified.
    const first = await signInWith(o, app(), 'google', newAccount(o.google, { email }).sub);
    expect((await me(o, first.browser, app())).json).toMatchObject({ user_id: created.body.id, email_verified: true });
    const second = await signInWith(o, app(), 'google', newAccount(o.google, { email }).sub);
    expect((await me(o, second.browser, app())).json.user_id).toBe(created.body.id);
    expect(await usersWith(email)).toHaveLength(1);
  });

  it('pre-hijacking: linking into an unverified account removes its password and revokes its sessions first', async () => {
    const email = uniqueEmail('victim');
    // Someone made the account before its owner and holds a session and the password.
    await secret('POST', '/v1/users', { email, password: PASSWORD });
    const squatter = await passwordSignIn(email);
    expect(squatter.status).toBe(200);
    const squatterMe = () => api(o.server, 'GET', '/v1/me', { publishableKey: app().publishable_key, bearer: squatter.body.access_token });
    expect((await squatterMe()).status).toBe(200);

    const owner = await signInWith(o, app(), 'google', newAccount(o.google, { email }).sub);
    expect(owner.callback.location!.href).toBe(RETURN);
    expect((await me(o, owner.browser, app())).json).toMatchObject({ user_id: squatter.body.user_id, email_verified: true });
    expect((await squatterMe()).status).toBe(401);
    expect((await passwordSignIn(email)).status).toBe(401);
    const refresh = await api(o.server, 'POST', '/v1/tokens/session', { publishableKey: app().publishable_key, body: { refresh_token: squatter.body.refresh_token } });
    expect(refresh.status).toBe(401);
  });

  it('the provider shares no email and the subject is new → ?error=email_missing', async () => {
    const sub = `no-email-${Date.now()}`;
    o.google.accounts.set(sub, {});
    const { callback } = await signInWith(o, app(), 'google', sub, { browser: new OAuthBrowser() });
    expect(errorOf(callback)).toBe('email_missing');
  });
});

describe('48 OAuth with Google and cookie_domain', () => {
  it("48 cookie_domain: the callback, which finds its app by the state, sets __session for the app's cookie domain under its verified domain", async () => {
    const host = 'auth.oauthcookies.example.test';
    const shared = await createApp(o.server, { tenantId: app().tenant_id, name: 'Cookie domain', args: ['--allowed-origin', new URL(RETURN).origin, '--domain', host, '--cookie-domain', 'oauthcookies.example.test'] });
    await configureGoogle(o.server, shared, o.apps[0].google);
    const start = await authorize(o.server, shared, 'google');
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const callbackUrl = `${o.server.url}/v1/oauth/google/callback`;
    const pending = await start.browser.walkProvider(start.body.authorization_url, newAccount(o.google).sub, callbackUrl);
    // The callback as it arrives on the verified domain (PUBLIC_BASE_URL there in production).
    const callback = await start.browser.request(pending.method, pending.url, { headers: { host } });
    expect(callback.status, callback.text).toBe(302);
    const cookies = setCookies(callback.headers);
    expect(cookies.__session!.attributes.domain).toBe('oauthcookies.example.test');
    expect(cookies.__refresh!.attributes.domain).toBeUndefined();
  });
});
