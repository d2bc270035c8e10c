import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, uniqueEmail, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { Browser } from '../helpers/browser.js';
import { botAuthBody, confirmedChallenge, newBotKeys, startSim, type ConfirmationsSim } from '../helpers/confirmations.js';
import { execDatabase, queryDatabase } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { claimsOf, codeAt, enrollTotp, verifyMfa } from '../helpers/mfa.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/sso.md (SSO token states): single sign-on between two
// apps of one tenant on different domains, driven the way a browser drives it (Host, cookies, redirects).

const A = 'https://a.example.test';
const B = 'https://b.example.test';
const PASSWORD = 'correct horse battery';

let sim: ConfirmationsSim;
let env: AuthEnv;
let server: TestServer;
let appA: TestApp;
let appB: TestApp;
let stranger: TestApp; // another tenant's app, x.example.test

beforeAll(async () => {
  sim = await startSim();
  env = await startAuthServer({ CONFIRMATIONS_URL: sim.url });
  server = env.server;
  appA = await createApp(server, { name: 'A', args: ['--domain', 'a.example.test'] });
  appB = await createApp(server, { tenantId: appA.tenant_id, name: 'B', args: ['--domain', 'b.example.test'] });
  stranger = await createApp(server, { name: 'X', args: ['--domain', 'x.example.test', '--allowed-origin', B] });
});
afterAll(async () => {
  await env?.stop();
  await sim?.close();
});

const secret = (app: TestApp, method: string, path: string, body?: unknown) => api(server, method, path, { bearer: app.secret_key, body });

/** A user made server-side in `app` (email_verified false) who may sign in with the password. */
async function serverUser(app: TestApp, email = uniqueEmail()) {
  const res = await secret(app, 'POST', '/v1/users', { email, password: PASSWORD });
  expect(res.status).toBe(201);
  return { email, id: res.body.id as string };
}

/** A browser signed in on A by password: the answer sets __session for a.example.test. */
async function browserSignedInOnA(email: string): Promise<Browser> {
  const browser = new Browser(server);
  const res = await browser.request('POST', `${A}/v1/signins`, { body: { email, password: PASSWORD, strategy: 'password' } });
  expect(res.status).toBe(200);
  expect(browser.cookie('a.example.test', '__session')).toBeTruthy();
  return browser;
}

/** Navigates the browser to A's bridge; returns the SSO token from the redirect. */
async function bridge(browser: Browser, returnTo = `${B}/cb`): Promise<string> {
  const res = await browser.request('GET', `${A}/v1/sso/bridge?return_to=${encodeURIComponent(returnTo)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(302);
  return res.location!.searchParams.get('__sso_token')!;
}

/** An SSO token for a user of A, minted through a sign-in token and the bridge (Bearer instead of the cookie). */
async function tokenFor(userId: string, returnTo = `${B}/cb`): Promise<string> {
  const { token } = (await secret(appA, 'POST', '/v1/sign_in_tokens', { user_id: userId })).body;
  const res = await api(server, 'GET', `/v1/sso/bridge?return_to=${encodeURIComponent(returnTo)}`, { headers: { host: 'a.example.test' }, bearer: token });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!).searchParams.get('__sso_token')!;
}

const exchange = (app: TestApp, token: unknown) => api(server, 'POST', '/v1/sso/exchange', { publishableKey: app.publishable_key, body: { token } });

async function userInB(email: string) {
  const res = await secret(appB, 'GET', `/v1/users?email=${encodeURIComponent(email)}`);
  return res.body.users as { id: string; email_verified: boolean }[];
}

describe('4.3 SSO: the browser hop from a.example.test to b.example.test', () => {
  it('bridge → 302 to return_to (query kept) with __sso_token → exchange on B sets B cookies; the token works once', async () => {
    const user = await serverUser(appA);
    const browser = await browserSignedInOnA(user.email);

    const res = await browser.request('GET', `${A}/v1/sso/bridge?return_to=${encodeURIComponent(`${B}/cb?x=1`)}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const landing = res.location!;
    expect(landing.origin).toBe(B);
    expect(landing.pathname).toBe('/cb');
    expect(landing.searchParams.get('x')).toBe('1');
    expect(landing.search.startsWith('?x=1&')).toBe(true);
    const token = landing.searchParams.get('__sso_token')!;
    expect(token).toMatch(/^sso_[A-Za-z0-9_-]{43}$/);

    // B's page reads the token from its URL and exchanges it on its own domain.
    expect(browser.cookie('b.example.test', '__session')).toBeUndefined();
    const exchanged = await browser.request('POST', `${B}/v1/sso/exchange`, { body: { token } });
    expect(exchanged.status).toBe(200);
    expect(Object.keys(exchanged.body).sort()).toEqual(['access_token', 'refresh_token', 'session_id', 'user_id']);
    expect(browser.cookie('b.example.test', '__session')).toBe(exchanged.body.access_token);
    expect(exchanged.body.user_id).not.toBe(user.id);

    const me = await browser.request('GET', `${B}/v1/me`);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ user_id: exchanged.body.user_id, email: user.email, email_verified: false, is_bot: false, public_metadata: {}, unsafe_metadata: {}, locale: null, organization: null });
    expect((await browser.request('GET', `${A}/v1/me`)).body.user_id).toBe(user.id);

    const reused = await browser.request('POST', `${B}/v1/sso/exchange`, { body: { token } });
    expect(reused.status).toBe(401);
    expect(Object.keys(reused.body)).toEqual(['detail', 'code']);
  });

  it('the bridge also takes the app from publishable_key or X-Publishable-Key, and the session as Bearer', async () => {
    const user = await serverUser(appA);
    const { token } = (await secret(appA, 'POST', '/v1/sign_in_tokens', { user_id: user.id })).body;
    const returnTo = encodeURIComponent(`${B}/cb`);
    const viaQuery = await api(server, 'GET', `/v1/sso/bridge?publishable_key=${appA.publishable_key}&return_to=${returnTo}`, { bearer: token });
    expect(viaQuery.status).toBe(302);
    const viaHeader = await api(server, 'GET', `/v1/sso/bridge?return_to=${returnTo}`, { bearer: token, publishableKey: appA.publishable_key });
    expect(viaHeader.status).toBe(302);
    // Without any way to name the app, or with A's token presented to B, there is no session.
    expect((await api(server, 'GET', `/v1/sso/bridge?return_to=${returnTo}`, { bearer: token })).status).toBe(401);
    expect((await api(server, 'GET', `/v1/sso/bridge?return_to=${returnTo}`, { bearer: token, publishableKey: appB.publishable_key })).status).toBe(401);
  });

  it('401 without a session, and at once after the session is revoked', async () => {
    const anonymous = new Browser(server);
    expect((await anonymous.request('GET', `${A}/v1/sso/bridge?return_to=${encodeURIComponent(`${B}/cb`)}`)).status).toBe(401);
    const user = await serverUser(appA);
    const browser = await browserSignedInOnA(user.email);
    await bridge(browser);
    const sessionId = await userSessionOf(browser);
    expect((await secret(appA, 'POST', `/v1/sessions/revoke?session_id=${sessionId}`)).status).toBe(200);
    expect((await browser.request('GET', `${A}/v1/sso/bridge?return_to=${encodeURIComponent(`${B}/cb`)}`)).status).toBe(401);
    expect((await browser.request('GET', `${A}/v1/me`)).status).toBe(401);
  });

  it('400 when return_to is not on the allow-list of an app of the tenant, or is missing', async () => {
    const user = await serverUser(appA);
    const browser = await browserSignedInOnA(user.email);
    for (const returnTo of [
      'https://evil.example.test/cb',
      'http://b.example.test/cb', // not https
      'https://b.example.test.evil.test/cb',
      'https://x.example.test/cb', // another tenant's app
      '/cb',
      'javascript:alert(1)',
      'https://user:pass@b.example.test/cb',
      `${B}/cb?__sso_token=planted`,
    ]) {
      const res = await browser.request('GET', `${A}/v1/sso/bridge?return_to=${encodeURIComponent(returnTo)}`);
      expect(res.status, returnTo).toBe(400);
      expect(res.location).toBeUndefined();
    }
    expect((await browser.request('GET', `${A}/v1/sso/bridge`)).status).toBe(400);
    // The source app's own origin is on the tenant's lists too.
    expect((await browser.request('GET', `${A}/v1/sso/bridge?return_to=${encodeURIComponent(`${A}/back`)}`)).status).toBe(302);
  });

  it('bots cannot SSO: the bridge answers 400', async () => {
    const keys = newBotKeys();
    const signup = await api(server, 'POST', '/v1/bot/signup', { publishableKey: appA.publishable_key, body: { challenge_id: await confirmedChallenge(sim), public_key: keys.publicKey } });
    expect(signup.status).toBe(200);
    const auth = await api(server, 'POST', '/v1/bot/auth', { publishableKey: appA.publishable_key, body: botAuthBody(keys, appA.app_id, signup.body.bot_id) });
    expect(auth.status).toBe(200);
    const res = await api(server, 'GET', `/v1/sso/bridge?return_to=${encodeURIComponent(`${B}/cb`)}`, { headers: { host: 'a.example.test' }, bearer: auth.body.access_token });
    expect(res.status).toBe(400);
  });
});

/** The session id behind the browser's A cookie (the access token's `sid` claim). */
async function userSessionOf(browser: Browser): Promise<string> {
  const jwt = browser.cookie('a.example.test', '__session')!;
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).sid;
}

describe('4.3 POST /v1/sso/exchange: errors and token states', () => {
  it('400 without a token; 401 for an unknown one', async () => {
    expect((await api(server, 'POST', '/v1/sso/exchange', { publishableKey: appB.publishable_key, body: {} })).status).toBe(400);
    expect((await exchange(appB, '')).status).toBe(400);
    expect((await exchange(appB, `sso_${'x'.repeat(43)}`)).status).toBe(401);
    expect((await api(server, 'POST', '/v1/sso/exchange', { body: { token: 'sso_x' } })).status).toBe(401);
  });

  it("403 at another tenant's app, and the token is not consumed: the right app still exchanges it", async () => {
    const token = await tokenFor((await serverUser(appA)).id);
    const refused = await exchange(stranger, token);
    expect(refused.status).toBe(403);
    expect(Object.keys(refused.body)).toEqual(['detail', 'code']);
    expect((await exchange(appB, token)).status).toBe(200);
  });

  it('401 at an app of the tenant whose allow-list lacks the origin the token was minted for', async () => {
    const token = await tokenFor((await serverUser(appA)).id, `${B}/cb`);
    expect((await exchange(appA, token)).status).toBe(401);
    expect((await exchange(appB, token)).status).toBe(200);
  });

  it('one token, many concurrent exchanges: exactly one session', async () => {
    const token = await tokenFor((await serverUser(appA)).id);
    const results = await Promise.all(Array.from({ length: 6 }, () => exchange(appB, token)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401, 401, 401]);
  });

  it('two hops of one new email exchanged at once create one user in B', async () => {
    const user = await verifiedUser(env, appA);
    const hop = () => tokenForBearer(user.tokens.access_token);
    const tokens = await Promise.all([hop(), hop(), hop()]);
    const results = await Promise.all(tokens.map((t) => exchange(appB, t)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(results.map((r) => r.body.user_id)).size).toBe(1);
    expect(await userInB(user.email)).toHaveLength(1);
  });
});

describe('contract 6: users in the target app', () => {
  it('upserts by email and carries email_verified over (verified and unverified)', async () => {
    const verified = await verifiedUser(env, appA);
    const token = await tokenForBearer(verified.tokens.access_token);
    const res = await exchange(appB, token);
    expect(res.status).toBe(200);
    expect(await userInB(verified.email)).toEqual([expect.objectContaining({ id: res.body.user_id, email_verified: true })]);
    // A second hop signs in to the same user.
    expect((await exchange(appB, await tokenForBearer(verified.tokens.access_token))).body.user_id).toBe(res.body.user_id);

    const unverified = await serverUser(appA);
    expect((await exchange(appB, await tokenFor(unverified.id))).status).toBe(200);
    expect(await userInB(unverified.email)).toEqual([expect.objectContaining({ email_verified: false })]);
  });

  it("a user the exchange makes in B takes the source user's locale, else the exchange's Accept-Language", async () => {
    const french = await serverUser(appA);
    expect((await secret(appA, 'PATCH', `/v1/users/${french.id}`, { locale: 'fr' })).status).toBe(200);
    const withHeader = (token: string, language: string) => api(server, 'POST', '/v1/sso/exchange', { publishableKey: appB.publishable_key, headers: { 'accept-language': language }, body: { token } });
    const a = await withHeader(await tokenFor(french.id), 'de');
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect((await secret(appB, 'GET', `/v1/users/${a.body.user_id}`)).body.locale).toBe('fr');
    const plain = await serverUser(appA);
    const b = await withHeader(await tokenFor(plain.id), 'de-CH, en;q=0.5');
    expect((await secret(appB, 'GET', `/v1/users/${b.body.user_id}`)).body.locale).toBe('de-CH');
  });

  it('a user of B with a second factor: the exchange answers mfa_required (no session, no cookie); the code completes it at aal2', async () => {
    const user = await verifiedUser(env, appA);
    const first = await exchange(appB, await tokenForBearer(user.tokens.access_token));
    expect(first.status).toBe(200);
    const totp = await enrollTotp(server, appB, first.body.access_token);

    const hop = await exchange(appB, await tokenForBearer(user.tokens.access_token));
    expect(hop.status).toBe(200);
    expect(hop.body).toMatchObject({ mfa_required: true, factors: [expect.objectContaining({ factor_id: totp.factorId, type: 'totp' })] });
    expect(hop.body.access_token).toBeUndefined();
    expect(hop.headers.get('set-cookie')).toBeNull();
    const done = await verifyMfa(server, appB, { mfa_token: hop.body.mfa_token, code: codeAt(totp.secret, 1) });
    expect(done.status).toBe(200);
    expect(claimsOf(done.body.access_token)).toMatchObject({ sub: first.body.user_id, amr: ['sso', 'otp'], aal: 'aal2' });
  });

  it('pre-hijacking: an unverified account made first in B loses its password, sessions and OAuth links to the verified owner', async () => {
    const email = uniqueEmail('victim');
    // Someone registers the address in B before its owner does, with a password, and holds a session.
    const squatter = await serverUser(appB, email);
    const squat = new Browser(server);
    expect((await squat.request('POST', `${B}/v1/signins`, { body: { email, password: PASSWORD, strategy: 'password' } })).status).toBe(200);
    expect((await squat.request('GET', `${B}/v1/me`)).status).toBe(200);
    // ... and had linked a Google subject to it while the address was unproven (docs/oauth.md).
    const now = new Date().toISOString();
    await execDatabase(
      server.databaseUrl,
      `insert into oauth_identities (app_id, provider, subject, user_id, email, name, created_at, updated_at) values ('${appB.app_id}', 'google', '${randomUUID()}', '${squatter.id}', 'x@example.com', null, '${now}', '${now}')`,
    );

    // The owner, verified in A, hops to B.
    const owner = await verifiedUser(env, appA, email);
    const browser = new Browser(server);
    browser.setCookie('a.example.test', '__session', owner.tokens.access_token);
    const exchanged = await browser.request('POST', `${B}/v1/sso/exchange`, { body: { token: await bridge(browser) } });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.user_id).toBe(squatter.id);
    expect((await browser.request('GET', `${B}/v1/me`)).body).toMatchObject({ user_id: squatter.id, email_verified: true });

    expect((await squat.request('GET', `${B}/v1/me`)).status).toBe(401);
    const again = await squat.request('POST', `${B}/v1/signins`, { body: { email, password: PASSWORD, strategy: 'password' } });
    expect(again.status).toBe(401);
    // The squatter's Google link went with the password: that subject no longer opens the owner's account.
    expect(await queryDatabase(server.databaseUrl, `select subject from oauth_identities where user_id = '${squatter.id}'`)).toEqual([]);
  });

  it('an email not verified in A cannot sign in to an existing account of B (401); that account is untouched', async () => {
    const email = uniqueEmail('owner');
    const owner = await verifiedUser(env, appB, email);
    const impostor = await serverUser(appA, email);
    const res = await exchange(appB, await tokenFor(impostor.id));
    expect(res.status).toBe(401);
    expect((await api(server, 'GET', '/v1/me', { publishableKey: appB.publishable_key, bearer: owner.tokens.access_token })).status).toBe(200);
    expect((await api(server, 'POST', '/v1/signins', { publishableKey: appB.publishable_key, body: { email, password: owner.password, strategy: 'password' } })).status).toBe(200);
  });
});

/** An SSO token to B for the holder of an access token of A. */
async function tokenForBearer(accessToken: string): Promise<string> {
  const res = await api(server, 'GET', `/v1/sso/bridge?return_to=${encodeURIComponent(`${B}/cb`)}`, { headers: { host: 'a.example.test' }, bearer: accessToken });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!).searchParams.get('__sso_token')!;
}

describe('part 3 and contract 8: expiry and the exchange rate limit', () => {
  let short: TestServer;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    short = await startServer({ SSO_TOKEN_TTL_SECONDS: '1', RATE_LIMITS: 'sso_exchange_ip=3/60' });
    a = await createApp(short, { name: 'A', args: ['--domain', 'a.example.test'] });
    b = await createApp(short, { tenantId: a.tenant_id, name: 'B', args: ['--domain', 'b.example.test'] });
  });
  afterAll(async () => {
    await short?.stop();
  });

  async function shortToken(): Promise<string> {
    const user = await api(short, 'POST', '/v1/users', { bearer: a.secret_key, body: { email: uniqueEmail() } });
    const { token } = (await api(short, 'POST', '/v1/sign_in_tokens', { bearer: a.secret_key, body: { user_id: user.body.id } })).body;
    const res = await api(short, 'GET', `/v1/sso/bridge?return_to=${encodeURIComponent(`${B}/cb`)}`, { headers: { host: 'a.example.test' }, bearer: token });
    return new URL(res.headers.get('location')!).searchParams.get('__sso_token')!;
  }
  const shortExchange = (token: string) => api(short, 'POST', '/v1/sso/exchange', { publishableKey: b.publishable_key, body: { token } });

  it('a token older than SSO_TOKEN_TTL_SECONDS is refused with 401; a fresh one works; the fourth exchange in a minute is 429', async () => {
    const stale = await shortToken();
    const fresh = await shortToken();
    expect((await shortExchange(fresh)).status).toBe(200);
    // SSO_TOKEN_TTL_SECONDS=1 on a real server, which has no clock a test can move: just past the second.
    await new Promise((r) => setTimeout(r, 1_200));
    expect((await shortExchange(stale)).status).toBe(401);
    expect((await shortExchange(`sso_${'y'.repeat(43)}`)).status).toBe(401);
    const limited = await shortExchange(await shortToken());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('issue 45 finding 5: a hop bound to the page that asked for it (nonce), against login CSRF', () => {
  // Their own tenant and domains, so these exchanges do not count against B's exchange limit above.
  const C = 'https://c.example.test';
  const D = 'https://d.example.test';
  let appC: TestApp;
  let appD: TestApp;
  const nonce = () => randomBytes(32).toString('base64url');

  beforeAll(async () => {
    appC = await createApp(server, { name: 'C', args: ['--domain', 'c.example.test'] });
    appD = await createApp(server, { tenantId: appC.tenant_id, name: 'D', args: ['--domain', 'd.example.test'] });
  });

  /** A browser signed in on C as a new verified user, whose email is also answered. */
  async function signedInOnC(): Promise<{ browser: Browser; email: string }> {
    const user = await verifiedUser(env, appC);
    const browser = new Browser(server);
    const res = await browser.request('POST', `${C}/v1/signins`, { body: { email: user.email, password: user.password, strategy: 'password' } });
    expect(res.status).toBe(200);
    return { browser, email: user.email };
  }

  /** The hop's token from C's bridge to D, with the nonce D's page made (or none). */
  async function hop(browser: Browser, withNonce?: string): Promise<string> {
    const query = `return_to=${encodeURIComponent(`${D}/welcome`)}${withNonce ? `&nonce=${withNonce}` : ''}`;
    const res = await browser.request('GET', `${C}/v1/sso/bridge?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(302);
    // The nonce stays with the page: the redirect carries only the token.
    expect([...res.location!.searchParams.keys()]).toEqual(['__sso_token']);
    return res.location!.searchParams.get('__sso_token')!;
  }

  const exchangeOnD = (browser: Browser, body: Record<string, unknown>) => browser.request('POST', `${D}/v1/sso/exchange`, { body });

  it('the token is redeemed only with the nonce it was bound to: none or a wrong one is 401 and leaves it usable; the right one signs in', async () => {
    const { browser, email } = await signedInOnC();
    const mine = nonce();
    const token = await hop(browser, mine);
    // Only the nonce's SHA-256 is stored, never the nonce itself.
    const [row] = await queryDatabase(server.databaseUrl, `select nonce_hash from sso_tokens where token_hash = '${createHash('sha256').update(token).digest('hex')}'`);
    expect(row).toEqual({ nonce_hash: createHash('sha256').update(mine).digest('hex') });

    for (const body of [{ token }, { token, nonce: nonce() }]) {
      const refused = await exchangeOnD(browser, body);
      expect(refused.status).toBe(401);
      expect(refused.body.detail).toMatch(/nonce/);
      expect(browser.cookie('d.example.test', '__session')).toBeUndefined();
    }
    const exchanged = await exchangeOnD(browser, { token, nonce: mine });
    expect(exchanged.status).toBe(200);
    expect((await browser.request('GET', `${D}/v1/me`)).body.email).toBe(email);
    expect((await exchangeOnD(browser, { token, nonce: mine })).status).toBe(401); // once
  });

  it("login CSRF: the intruder's token, handed to the victim's page waiting for its own hop, is refused and the victim stays who they are", async () => {
    const intruder = await signedInOnC();
    const victim = await signedInOnC();
    // The victim is signed in on D too, and their page started a hop of its own (its nonce in sessionStorage).
    const theirs = nonce();
    const victimToken = await hop(victim.browser, theirs);
    expect((await exchangeOnD(victim.browser, { token: victimToken, nonce: theirs })).status).toBe(200);
    const waiting = nonce();
    // The intruder's link, with or without a nonce of the intruder's own: the victim's page sends its nonce.
    for (const token of [await hop(intruder.browser), await hop(intruder.browser, nonce())]) {
      const refused = await exchangeOnD(victim.browser, { token, nonce: waiting });
      expect(refused.status).toBe(401);
      expect((await victim.browser.request('GET', `${D}/v1/me`)).body.email).toBe(victim.email);
    }
    // Nothing was made for the intruder in D.
    const listed = await api(server, 'GET', `/v1/users?email=${encodeURIComponent(intruder.email)}`, { bearer: appD.secret_key });
    expect(listed.body.users).toEqual([]);
  });

  it('a hop without a nonce still works as docs/sso.md has it (bridge with return_to only, exchange with the token only)', async () => {
    const { browser, email } = await signedInOnC();
    const token = await hop(browser);
    const exchanged = await exchangeOnD(browser, { token });
    expect(exchanged.status).toBe(200);
    expect((await browser.request('GET', `${D}/v1/me`)).body.email).toBe(email);
  });

  it('a malformed nonce is 400 at the bridge (no token minted) and at the exchange', async () => {
    const { browser } = await signedInOnC();
    const before = await queryDatabase(server.databaseUrl, 'select count(*) as n from sso_tokens');
    for (const bad of ['short', `${'a'.repeat(30)}!`, 'a'.repeat(129)]) {
      const res = await browser.request('GET', `${C}/v1/sso/bridge?return_to=${encodeURIComponent(`${D}/`)}&nonce=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(/nonce/);
    }
    expect(await queryDatabase(server.databaseUrl, 'select count(*) as n from sso_tokens')).toEqual(before);
    const token = await hop(browser, nonce());
    const res = await exchangeOnD(browser, { token, nonce: 'short' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/nonce/);
  });
});
