import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies, startAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { OAuthBrowser } from '../helpers/oauth-browser.js';
import { authorize, errorOf, me, newAccount, RETURN, signInWith, SITE } from '../helpers/oauth.js';
import { createIssuer, type TestIssuer } from '../helpers/oidc-provider.js';

// docs/oauth.md, custom OpenID Connect providers (oidc-<name>): any issuer by discovery, here a real
// OpenID provider (oidc-provider) on loopback at a Keycloak-like path, with PKCE, state and nonce; the
// issuer rules (https, http on loopback only, no private address, at PUT and after DNS at each request);
// at most 20 per app, the cap held by concurrent PUTs.

let env: AuthEnv;
let idp: TestIssuer;
let rogue: Server;
let rogueUrl = '';
let A: TestApp;
let B: TestApp;
const o = () => ({ server: env.server });
const ACME = { clientId: 'gatehouse-acme', clientSecret: 'acme-secret-0123456789abcdef' };
const callbackOf = (provider: string) => `${env.server.url}/v1/oauth/${provider}/callback`;

beforeAll(async () => {
  idp = await createIssuer('oidc', [ACME], { path: '/realms/acme' });
  // An issuer whose discovery document sends the token request to the cloud metadata address, and whose
  // authorization endpoint answers at once with a code (as a provider that signed the person in would).
  rogue = createServer((req, res) => {
    const url = new URL(req.url ?? '/', rogueUrl);
    if (url.pathname === '/.well-known/openid-configuration') {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ issuer: rogueUrl, authorization_endpoint: `${rogueUrl}/auth`, token_endpoint: 'http://169.254.169.254/latest/meta-data/iam', jwks_uri: 'http://10.0.0.1/jwks', response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'] }),
      );
    }
    const back = new URL(url.searchParams.get('redirect_uri') ?? RETURN);
    back.search = new URLSearchParams({ code: 'rogue-code', state: url.searchParams.get('state') ?? '' }).toString();
    res.writeHead(302, { location: back.href }).end();
  });
  await new Promise<void>((resolve) => rogue.listen(0, '127.0.0.1', resolve));
  rogueUrl = `http://localhost:${(rogue.address() as { port: number }).port}`;
  env = await startAuthServer({ OIDC_ALLOW_LOOPBACK_ISSUERS: 'true' });
  await idp.start(callbackOf('oidc-acme'));
  A = await createApp(env.server, { name: 'OIDC app A', args: ['--allowed-origin', SITE] });
  B = await createApp(env.server, { name: 'OIDC app B', args: ['--allowed-origin', SITE] });
  const res = await put(A, 'oidc-acme', { issuer: idp.issuer, client_id: ACME.clientId, client_secret: ACME.clientSecret, display_name: 'Acme SSO' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
});
afterAll(async () => {
  await env?.stop();
  await idp?.stop();
  await new Promise((resolve) => rogue?.close(resolve));
});

const put = (app: TestApp, provider: string, body: unknown) => api(env.server, 'PUT', `/v1/oauth/providers/${provider}`, { bearer: app.secret_key, body });
const list = async (app: TestApp) => (await api(env.server, 'GET', '/v1/oauth/providers', { bearer: app.secret_key })).body.providers as Record<string, unknown>[];
const usersWith = async (email: string) => (await api(env.server, 'GET', `/v1/users?email=${encodeURIComponent(email)}`, { bearer: A.secret_key })).body.users as { id: string }[];

describe('custom OIDC providers: configuration', () => {
  it('PUT oidc-<name> answers the issuer and display_name, the secret as ****, openid always among the scopes; both lists show it', async () => {
    const scoped = await put(A, 'oidc-acme', { issuer: `${idp.issuer}/`, client_id: ACME.clientId, client_secret: ACME.clientSecret, display_name: ' Acme SSO ', scopes: ['email', 'groups'] });
    expect(scoped.body).toMatchObject({ provider: 'oidc-acme', display_name: 'Acme SSO', issuer: idp.issuer, client_secret: '****', scopes: ['openid', 'email', 'groups'] });
    await put(A, 'oidc-acme', { issuer: idp.issuer, client_id: ACME.clientId, client_secret: ACME.clientSecret, display_name: 'Acme SSO' });
    expect(await list(A)).toEqual([expect.objectContaining({ provider: 'oidc-acme', display_name: 'Acme SSO', issuer: idp.issuer, scopes: ['openid', 'email', 'profile'] })]);
    expect(JSON.stringify(await list(A))).not.toContain(ACME.clientSecret);
    const pub = await api(env.server, 'GET', '/v1/oauth/providers/public', { publishableKey: A.publishable_key });
    expect(pub.body).toEqual({ providers: [{ provider: 'oidc-acme', display_name: 'Acme SSO' }] });
  });

  it('an issuer that is not https off loopback, carries a query or credentials, or is a private or metadata address → 400 invalid_issuer, nothing stored', async () => {
    const base = { client_id: 'c', client_secret: 's', display_name: 'X' };
    for (const issuer of ['http://idp.example.com', 'https://10.0.0.5/realms/x', 'https://169.254.169.254', 'https://[fd00::1]/', 'https://192.168.1.10', 'https://idp.example.com/?a=1', 'https://u:p@idp.example.com', 'ftp://idp.example.com', 'not a url']) {
      const res = await put(B, 'oidc-bad', { ...base, issuer });
      expect(res.status, issuer).toBe(400);
      expect(res.body.code, issuer).toBe('invalid_issuer');
    }
    for (const body of [{ ...base, issuer: 'https://idp.example.com' }, { issuer: 'https://idp.example.com', client_id: 'c', client_secret: 's', display_name: '' }]) {
      const { display_name, ...rest } = body;
      expect((await put(B, 'oidc-bad', display_name ? rest : body)).status).toBe(400);
    }
    expect(await list(B)).toEqual([]);
  });

  it('at most 20 per app: 25 concurrent PUTs of new names → 20 stored and 5 answered 409 provider_limit_reached; a stored one still updates', async () => {
    const app = await createApp(env.server, { name: 'OIDC cap', args: ['--allowed-origin', SITE] });
    const body = (i: number) => ({ issuer: `https://idp${i}.example.com`, client_id: `c${i}`, client_secret: `s${i}`, display_name: `IdP ${i}` });
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => put(app, `oidc-idp-${i}`, body(i))));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    expect(answers.find((a) => a.status === 409)!.body.code).toBe('provider_limit_reached');
    const stored = await list(app);
    expect(stored).toHaveLength(20);
    // Built-in providers are not counted; an update of a stored one passes at the cap.
    const kept = stored[0].provider as string;
    expect((await put(app, kept, { ...body(99), display_name: 'Renamed' })).body.display_name).toBe('Renamed');
    expect((await put(app, 'google', { client_id: 'g', client_secret: 'g' })).status).toBe(200);
    expect((await put(app, 'oidc-one-more', body(50))).status).toBe(409);
  });
});

describe('custom OIDC providers: the round trip', () => {
  it('authorize at the discovered endpoint with PKCE S256, state and nonce; the callback signs the person in', async () => {
    const account = newAccount(idp);
    const start = await authorize(env.server, A, 'oidc-acme');
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const url = new URL(start.body.authorization_url);
    expect(url.href.startsWith(`${idp.issuer}/auth`)).toBe(true);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: ACME.clientId, redirect_uri: callbackOf('oidc-acme'), scope: 'openid email profile', code_challenge_method: 'S256' });
    expect(url.searchParams.get('nonce')!.length).toBeGreaterThanOrEqual(32);
    expect(setCookies(start.headers)['__oauth_oidc-acme'].attributes).toMatchObject({ httponly: true, path: '/v1/oauth', samesite: 'Lax' });
    const callback = await start.browser.signInAtProvider(url.href, account.sub, callbackOf('oidc-acme'));
    expect(callback.status, callback.text).toBe(302);
    expect(callback.location!.href).toBe(RETURN);
    expect((await me(o(), start.browser, A)).json).toMatchObject({ email: account.email, email_verified: true });
  });

  it("a user the sign-in makes takes the browser's Accept-Language as its locale (docs/email.md); a later sign-in changes nothing", async () => {
    const account = newAccount(idp);
    const { callback } = await signInWith(o(), A, 'oidc-acme', account.sub, { browser: new OAuthBrowser({ 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' }) });
    expect(callback.status, callback.text).toBe(302);
    const [user] = await usersWith(account.email);
    expect((await api(env.server, 'GET', `/v1/users/${user!.id}`, { bearer: A.secret_key })).body.locale).toBe('de-AT');
    expect((await signInWith(o(), A, 'oidc-acme', account.sub, { browser: new OAuthBrowser({ 'accept-language': 'fr' }) })).callback.status).toBe(302);
    expect((await api(env.server, 'GET', `/v1/users/${user!.id}`, { bearer: A.secret_key })).body.locale).toBe('de-AT');
    const plain = newAccount(idp);
    await signInWith(o(), A, 'oidc-acme', plain.sub);
    const [other] = await usersWith(plain.email);
    expect((await api(env.server, 'GET', `/v1/users/${other!.id}`, { bearer: A.secret_key })).body.locale).toBeNull();
  });

  it('an email the issuer does not say is verified → ?error=email_not_verified, no user; a wrong nonce → invalid_id_token', async () => {
    const account = newAccount(idp, { email_verified: false });
    expect(errorOf((await signInWith(o(), A, 'oidc-acme', account.sub)).callback)).toBe('email_not_verified');
    expect(await usersWith(account.email)).toHaveLength(0);
    const other = newAccount(idp);
    const edited = await signInWith(o(), A, 'oidc-acme', other.sub, { editUrl: (url) => url.searchParams.set('nonce', 'n'.repeat(43)) });
    expect(errorOf(edited.callback)).toBe('invalid_id_token');
  });

  it('the callback in another browser → ?error=invalid_state; B, which has no such provider, cannot start it and its key does not complete A\'s', async () => {
    const account = newAccount(idp);
    const starter = new OAuthBrowser();
    const start = await authorize(env.server, A, 'oidc-acme', RETURN, starter);
    const pending = await starter.walkProvider(start.body.authorization_url, account.sub, callbackOf('oidc-acme'));
    expect(errorOf(await new OAuthBrowser().send(pending))).toBe('invalid_state');
    expect(errorOf(await starter.request('GET', pending.url, { headers: { 'x-publishable-key': B.publishable_key } }))).toBe('invalid_state');
    expect((await starter.send(pending)).location!.href).toBe(RETURN);
    expect((await authorize(env.server, B, 'oidc-acme')).body.code).toBe('provider_not_configured');
    expect((await api(env.server, 'DELETE', '/v1/oauth/providers/oidc-acme', { bearer: B.secret_key })).status).toBe(404);
    expect(await list(A)).toHaveLength(1);
  });

  it("endpoints a discovery document names at private or metadata addresses are never requested: the callback answers ?error=provider_unavailable", async () => {
    const res = await put(B, 'oidc-rogue', { issuer: rogueUrl, client_id: 'c', client_secret: 's', display_name: 'Rogue' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const browser = new OAuthBrowser();
    const start = await authorize(env.server, B, 'oidc-rogue', RETURN, browser);
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const back = await browser.request('GET', start.body.authorization_url);
    const callback = await browser.request('GET', back.location!);
    expect(errorOf(callback)).toBe('provider_unavailable');
    expect(await env.server.logs()).toMatch(/169\.254\.169\.254 is a private or special-purpose address/);
  });

  it('DELETE removes it: authorize then answers provider_not_configured; each PUT and DELETE wrote its event, the secret key its actor, no secret in it', async () => {
    expect((await api(env.server, 'DELETE', '/v1/oauth/providers/oidc-rogue', { bearer: B.secret_key })).body).toEqual({ status: 'deleted' });
    expect((await authorize(env.server, B, 'oidc-rogue')).body.code).toBe('provider_not_configured');
    const events = (await api(env.server, 'GET', '/v1/events?type=oauth_provider.updated,oauth_provider.deleted', { bearer: B.secret_key })).body.events as { type: string; data: unknown; actor: unknown }[];
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['oauth_provider.deleted', { provider: 'oidc-rogue' }],
      ['oauth_provider.updated', { provider: 'oidc-rogue' }],
    ]);
    expect(events[0].actor).toEqual({ type: 'secret_key', id: null });
    // A's PUTs are A's events; refused PUTs (400, 409) wrote none.
    const ofA = (await api(env.server, 'GET', '/v1/events?type=oauth_provider.updated', { bearer: A.secret_key })).body.events as unknown[];
    expect(ofA).toHaveLength(3);
    expect(JSON.stringify(ofA)).not.toContain(ACME.clientSecret);
  });
});
