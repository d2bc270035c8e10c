import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies } from '../helpers/accounts.js';
import { api } from '../helpers/fixtures.js';
import { OAuthBrowser } from '../helpers/oauth-browser.js';
import { claimsOf, codeAt, enrollTotp, verifyMfa } from '../helpers/mfa.js';
import { authorize, errorOf, expireOAuthState, me, newAccount, RETURN, signInWith, startOAuthEnv, type OAuthEnv } from '../helpers/oauth.js';

// docs/oauth.md: the callback opens nothing unless the state is live and the ID token passes
// every check (signature by the issuer's JWKS, issuer, audience, nonce, expiry); app isolation; the
// provider going away. Driven through a real provider playing Google.

let o: OAuthEnv;
beforeAll(async () => {
  o = await startOAuthEnv(2);
});
afterAll(async () => {
  await o?.stop();
});

const A = () => o.apps[0].app;
const B = () => o.apps[1].app;
const googleCallback = () => `${o.server.url}/v1/oauth/google/callback`;

/** Authorize for `app`, log in at the provider, and stop right before the browser reaches the callback. */
async function atCallback(app = A(), edit?: (url: URL) => void) {
  const browser = new OAuthBrowser();
  const start = await authorize(o.server, app, 'google', RETURN, browser);
  const url = new URL(start.body.authorization_url);
  edit?.(url);
  const pending = await browser.walkProvider(url.href, newAccount(o.google).sub, googleCallback());
  return { browser, pending, state: url.searchParams.get('state')! };
}

/** Another browser holding the same binding cookie (a copy of it: what only its owner could make). */
function withBindingOf(browser: OAuthBrowser): OAuthBrowser {
  const copy = new OAuthBrowser();
  copy.putCookie(googleCallback(), '__oauth_google', browser.cookie(googleCallback(), '__oauth_google')!, { path: '/v1/oauth' });
  return copy;
}

async function expectNoSession(callback: Awaited<ReturnType<OAuthBrowser['send']>>, code: string) {
  expect(errorOf(callback)).toBe(code);
  expect(setCookies(callback.headers).__session).toBeUndefined();
}

describe('13 OAuth callback: the state', () => {
  it('an unknown state, or none → 400 {detail} (no redirect_url is known)', async () => {
    for (const query of ['?state=not-a-state&code=x', '?code=x', '']) {
      const res = await api(o.server, 'GET', `/v1/oauth/google/callback${query}`);
      expect(res.status).toBe(400);
      expect(typeof res.body.detail).toBe('string');
    }
    const posted = await new OAuthBrowser().request('POST', googleCallback().replace('google', 'apple'), { form: { state: 'nope', code: 'x' } });
    expect(posted.status).toBe(400);
  });

  it('a replayed callback (the same state, code and binding cookie twice) → the second → ?error=invalid_state, no session', async () => {
    const { browser, pending } = await atCallback();
    const replayer = withBindingOf(browser);
    expect((await browser.send(pending)).location!.href).toBe(RETURN);
    await expectNoSession(await replayer.send(pending), 'invalid_state');
  });

  it('the same callback fired twice at once (both with the binding cookie) → exactly one session', async () => {
    const { browser, pending } = await atCallback();
    const results = await Promise.all([withBindingOf(browser).send(pending), withBindingOf(browser).send(pending)]);
    const errors = results.map((r) => errorOf(r)).sort();
    expect(errors).toEqual(['invalid_state', null].sort());
    expect(results.filter((r) => setCookies(r.headers).__session).length).toBe(1);
  });

  it('a state past its 10 minutes → ?error=invalid_state', async () => {
    const { browser, pending, state } = await atCallback();
    await expireOAuthState(o.server.databaseUrl, state);
    await expectNoSession(await browser.send(pending), 'invalid_state');
  });

  it("a wrong state: one sign-in's code with another's state → PKCE fails at the provider → ?error=token_exchange_failed; that state is spent", async () => {
    const one = await atCallback();
    const other = await atCallback();
    const mixed = new URL(one.pending.url);
    mixed.searchParams.set('state', other.state);
    // Sent from the browser that started `other` (it holds that state's binding cookie).
    await expectNoSession(await other.browser.send({ ...one.pending, url: mixed }), 'token_exchange_failed');
    await expectNoSession(await other.browser.send(other.pending), 'invalid_state');
  });

  it("Google's state at Apple's callback → ?error=invalid_state", async () => {
    const { browser, pending } = await atCallback();
    const form = Object.fromEntries(pending.url.searchParams);
    await expectNoSession(await browser.request('POST', googleCallback().replace('google', 'apple'), { form }), 'invalid_state');
  });

  it('a code altered on the way → the token endpoint refuses it → ?error=token_exchange_failed', async () => {
    const { browser, pending } = await atCallback();
    pending.url.searchParams.set('code', 'forged-code');
    await expectNoSession(await browser.send(pending), 'token_exchange_failed');
  });
});

describe('13 OAuth callback: the ID token', () => {
  it('wrong nonce: the nonce in the authorization URL changed → the ID token carries another → ?error=invalid_id_token', async () => {
    const { browser, pending } = await atCallback(A(), (url) => url.searchParams.set('nonce', 'a-nonce-the-server-never-made'));
    await expectNoSession(await browser.send(pending), 'invalid_id_token');
  });

  const tampered: [string, Parameters<OAuthEnv['google']['tamperNextIdToken']>[0]][] = [
    ['expired ID token', { claims: (c) => ({ ...c, iat: c.iat! - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }) }],
    ['token signed by a foreign key (same kid, not in the JWKS)', { foreignKey: true }],
    ['audience of another client', { claims: (c) => ({ ...c, aud: o.apps[1].google.clientId }) }],
    ['another issuer', { claims: (c) => ({ ...c, iss: 'https://accounts.google.com' }) }],
  ];
  for (const [name, tamper] of tampered) {
    it(`${name} → ?error=invalid_id_token, no session`, async () => {
      const { browser, pending } = await atCallback();
      o.google.tamperNextIdToken(tamper);
      await expectNoSession(await browser.send(pending), 'invalid_id_token');
    });
  }

  it('the same flow untampered succeeds (the checks above fail for their reason only)', async () => {
    const { browser, pending } = await atCallback();
    expect((await browser.send(pending)).location!.href).toBe(RETURN);
    expect((await me(o, browser, A())).status).toBe(200);
  });
});

describe('OAuth sign-in of a user with a second factor (docs/mfa.md)', () => {
  it('the callback redirects with ?mfa_token= and sets no cookie; the token and a TOTP code give amr ["oauth","otp"]', async () => {
    const account = newAccount(o.google);
    const first = await signInWith(o, A(), 'google', account.sub);
    expect(first.callback.location!.href).toBe(RETURN);
    const userId = (await me(o, first.browser, A())).json.user_id as string;
    expect(userId).toBeTruthy();
    const minted = await api(o.server, 'POST', '/v1/sign_in_tokens', { bearer: A().secret_key, body: { user_id: userId } });
    const totp = await enrollTotp(o.server, A(), minted.body.token);

    const again = await signInWith(o, A(), 'google', account.sub);
    const landing = again.callback.location!;
    expect(`${landing.origin}${landing.pathname}`).toBe(RETURN);
    const mfaToken = landing.searchParams.get('mfa_token');
    expect(mfaToken).toMatch(/.{20,}/);
    expect(landing.searchParams.get('error')).toBeNull();
    expect(setCookies(again.callback.headers).__session).toBeUndefined();
    expect((await me(o, again.browser, A())).status).toBe(401);

    // Another app's key cannot finish it; this app's key with the next step's code does.
    expect((await verifyMfa(o.server, B(), { mfa_token: mfaToken, code: codeAt(totp.secret, 1) })).status).toBe(401);
    const done = await verifyMfa(o.server, A(), { mfa_token: mfaToken, code: codeAt(totp.secret, 1) });
    expect(done.status).toBe(200);
    expect(claimsOf(done.body.access_token)).toMatchObject({ sub: userId, amr: ['oauth', 'otp'], aal: 'aal2' });
  });
});

describe('13 OAuth callback: the provider says no', () => {
  it('the person cancels at the provider ("Cancel" on its login page) → ?error=access_denied, no session', async () => {
    const browser = new OAuthBrowser();
    const start = await authorize(o.server, A(), 'google', RETURN, browser);
    let page = await browser.request('GET', start.body.authorization_url);
    page = await browser.request('GET', page.location!);
    const cancel = /href="([^"]*\/abort)"/.exec(page.text);
    expect(cancel, page.text).not.toBeNull();
    let next = new URL(cancel![1], page.url);
    while (!next.href.startsWith(googleCallback())) next = (await browser.request('GET', next)).location!;
    expect(next.searchParams.get('error')).toBe('access_denied');
    await expectNoSession(await browser.request('GET', next), 'access_denied');
  });
});

describe('13 OAuth: app isolation', () => {
  it("app B's state opens a session in B only: /v1/me with A's key → 401", async () => {
    const { browser, pending } = await atCallback(B());
    expect((await browser.send(pending)).location!.href).toBe(RETURN);
    expect((await me(o, browser, B())).status).toBe(200);
    expect((await me(o, browser, A())).status).toBe(401);
  });

  it("app B's state presented with A's publishable key → ?error=invalid_state", async () => {
    const { browser, pending } = await atCallback(B());
    const res = await browser.request('GET', pending.url, { headers: { 'x-publishable-key': A().publishable_key } });
    await expectNoSession(res, 'invalid_state');
  });

  it("each app's authorize uses its own client at the provider", async () => {
    const a = new URL((await authorize(o.server, A(), 'google')).body.authorization_url);
    const b = new URL((await authorize(o.server, B(), 'google')).body.authorization_url);
    expect(a.searchParams.get('client_id')).toBe(o.apps[0].google.clientId);
    expect(b.searchParams.get('client_id')).toBe(o.apps[1].google.clientId);
  });

  it("B's configuration removed between authorize and callback → B's callback → ?error=provider_not_configured; A is unaffected", async () => {
    const { browser, pending } = await atCallback(B());
    expect((await api(o.server, 'DELETE', '/v1/oauth/providers/google', { bearer: B().secret_key })).status).toBe(200);
    await expectNoSession(await browser.send(pending), 'provider_not_configured');
    expect((await authorize(o.server, B(), 'google')).status).toBe(400);
    const a = await atCallback(A());
    expect((await a.browser.send(a.pending)).location!.href).toBe(RETURN);
  });
});

describe('13 OAuth callback: a paused tenant (docs/billing.md)', () => {
  const credit = async (amount: string) => {
    const result = await o.server.cli(['billing', 'credit', '--tenant', A().tenant_id, '--amount-usd', amount, '--note', 'oauth pause test', '--json']);
    expect(result.code, result.stderr).toBe(0);
  };

  it('a sign-in started before the pause comes back with ?error=app_paused and no session; after a credit it works', async () => {
    const { browser, pending } = await atCallback();
    await credit('-1');
    try {
      await expectNoSession(await browser.send(pending), 'app_paused');
    } finally {
      await credit('1');
    }
    const again = await atCallback();
    expect((await again.browser.send(again.pending)).location!.href).toBe(RETURN);
  });
});

describe('13 OAuth: the provider unreachable', () => {
  it('at the callback → ?error=provider_unavailable; at authorize (discovery unreachable) → 502 {detail}', async () => {
    const { browser, pending } = await atCallback();
    await o.google.stop();
    await o.apple.stop();
    await expectNoSession(await browser.send(pending), 'provider_unavailable');
    // Apple's discovery document was never read by this server, so authorize must fetch it now.
    const res = await authorize(o.server, A(), 'apple');
    expect(res.status).toBe(502);
    expect(res.body.detail).toMatch(/discovery/);
  });
});
