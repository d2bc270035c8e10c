import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies } from '../helpers/accounts.js';
import { queryDatabase } from '../helpers/db.js';
import { OAuthBrowser } from '../helpers/oauth-browser.js';
import { authorize, errorOf, me, newAccount, RETURN, startOAuthEnv, type OAuthEnv } from '../helpers/oauth.js';

// Issue 35, finding 2 (docs/oauth.md and docs/api.md and docs/storage.md): the OAuth flow is bound to the browser that
// started it. Authorize sets an HttpOnly cookie whose hash is kept with the state; a callback without it
// (the attacker's callback link or auto-submitting form, opened by someone else) fails as an unknown
// state would, and a form_post from a page other than the issuer's is refused the same way.

let o: OAuthEnv;
beforeAll(async () => {
  o = await startOAuthEnv(1);
});
afterAll(async () => {
  await o?.stop();
});

const app = () => o.apps[0].app;
const callbackOf = (provider: 'google' | 'apple') => `${o.server.url}/v1/oauth/${provider}/callback`;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Authorize in `starter`, log in at the provider, stop right before the callback (what an attacker can do with their own account). */
async function stopBeforeCallback(provider: 'google' | 'apple', starter = new OAuthBrowser()) {
  const start = await authorize(o.server, app(), provider, RETURN, starter);
  expect(start.status).toBe(200);
  const pending = await starter.walkProvider(start.body.authorization_url, newAccount(o[provider]).sub, callbackOf(provider));
  return { starter, pending, start, state: new URL(start.body.authorization_url).searchParams.get('state')! };
}

async function expectRefused(callback: Awaited<ReturnType<OAuthBrowser['send']>>) {
  expect(errorOf(callback)).toBe('invalid_state');
  expect(setCookies(callback.headers).__session).toBeUndefined();
}

describe('35.2 OAuth login CSRF: the binding cookie', () => {
  it('35.2 authorize sets it: HttpOnly, Path=/v1/oauth, 10 minutes; Lax for Google, None; Secure for Apple; only its hash is stored', async () => {
    for (const provider of ['google', 'apple'] as const) {
      const start = await authorize(o.server, app(), provider);
      const cookie = setCookies(start.headers)[`__oauth_${provider}`];
      expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(cookie.attributes).toMatchObject({ httponly: true, path: '/v1/oauth', 'max-age': '600' });
      if (provider === 'google') {
        expect(cookie.attributes.samesite).toBe('Lax');
        expect(cookie.attributes.secure).toBeUndefined(); // PUBLIC_BASE_URL is http here
      } else {
        expect(cookie.attributes).toMatchObject({ samesite: 'None', secure: true });
      }
      const state = new URL(start.body.authorization_url).searchParams.get('state')!;
      const rows = await queryDatabase(o.server.databaseUrl, `SELECT browser_binding_hash FROM oauth_states WHERE state_hash = '${sha256(state)}'`);
      expect(rows).toEqual([{ browser_binding_hash: sha256(cookie.value) }]);
    }
  });

  it("35.2 Google: the attacker's callback link opened in a browser that did not start the flow → ?error=invalid_state, nobody signed in; the state is not spent", async () => {
    const { starter, pending } = await stopBeforeCallback('google');
    const victim = new OAuthBrowser();
    await expectRefused(await victim.send(pending));
    expect((await me(o, victim, app())).status).toBe(401);
    // The refused request spent nothing: the browser that started the flow still completes it.
    const own = await starter.send(pending);
    expect(own.location!.href).toBe(RETURN);
    expect((await me(o, starter, app())).status).toBe(200);
    // ...and the binding cookie is spent with the state.
    expect(setCookies(own.headers).__oauth_google?.attributes['max-age']).toBe('0');
  });

  it('35.2 Google: a wrong binding cookie, or the cookie of another flow → ?error=invalid_state', async () => {
    const { pending } = await stopBeforeCallback('google');
    const forger = new OAuthBrowser();
    forger.putCookie(callbackOf('google'), '__oauth_google', 'A'.repeat(43), { path: '/v1/oauth' });
    await expectRefused(await forger.send(pending));
    // The victim started a flow of their own: their cookie does not fit the attacker's state.
    const victim = new OAuthBrowser();
    expect((await authorize(o.server, app(), 'google', RETURN, victim)).status).toBe(200);
    await expectRefused(await victim.send(pending));
    expect((await me(o, victim, app())).status).toBe(401);
  });

  it('35.2 Apple: the form_post auto-submitted from another site, in a browser without the cookie → ?error=invalid_state', async () => {
    const { pending } = await stopBeforeCallback('apple');
    const victim = new OAuthBrowser();
    await expectRefused(await victim.request('POST', pending.url, { form: pending.form, fromSite: 'http://evil.example' }));
    await expectRefused(await victim.request('POST', pending.url, { form: pending.form }));
    expect((await me(o, victim, app())).status).toBe(401);
  });

  it("35.2 Apple: a form_post whose Origin is not the issuer's → ?error=invalid_state, even with the cookie; from the issuer's page → signed in", async () => {
    const { starter, pending } = await stopBeforeCallback('apple');
    expect(pending.fromSite).toBe(new URL(o.apple.issuer).origin);
    for (const origin of ['http://evil.example', 'null', new URL(o.google.issuer).origin]) {
      await expectRefused(await starter.request('POST', pending.url, { form: pending.form, fromSite: origin }));
    }
    const own = await starter.send(pending);
    expect(own.location!.href).toBe(RETURN);
    expect((await me(o, starter, app())).status).toBe(200);
  });
});
