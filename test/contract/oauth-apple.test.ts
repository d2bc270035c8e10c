import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { setCookies } from '../helpers/accounts.js';
import { queryDatabase } from '../helpers/db.js';
import { configureApple, errorOf, me, newAccount, RETURN, signInWith, startOAuthEnv, type OAuthEnv } from '../helpers/oauth.js';
import { newAppleKey } from '../helpers/oidc-provider.js';

// docs/oauth.md with a real OpenID provider playing Apple: the response
// comes back as a cross-site form_post, and the client authenticates with an ES256 client-secret JWT
// signed by the app's .p8 key, which the provider verifies as Apple does.

let o: OAuthEnv;
beforeAll(async () => {
  o = await startOAuthEnv(1);
});
afterAll(async () => {
  await o?.stop();
});

const app = () => o.apps[0].app;
const APPLE_USER = JSON.stringify({ name: { firstName: 'Ada', lastName: 'Lovelace' }, email: 'ignored@example.com' });

describe('4.2 OAuth with Apple: form_post and the client-secret JWT', () => {
  it('new user: authorize (response_mode=form_post) → login → the form posted cross-site to the POST callback → session → /v1/me', async () => {
    const account = newAccount(o.apple);
    const { callback, browser } = await signInWith(o, app(), 'apple', account.sub, {
      editUrl: (url) => expect(url.searchParams.get('response_mode')).toBe('form_post'),
      extraFields: { user: APPLE_USER },
    });
    expect(callback.status, callback.text).toBe(302);
    expect(callback.location!.href).toBe(RETURN);
    expect(setCookies(callback.headers).__session).toBeDefined();
    const res = await me(o, browser, app());
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ email: account.email, email_verified: true });
    // The name Apple sends once, in the `user` field of the first form_post, is kept with the link.
    const rows = await queryDatabase(o.server.databaseUrl, `SELECT name FROM oauth_identities WHERE subject = '${account.sub}'`);
    expect(rows).toEqual([{ name: 'Ada Lovelace' }]);
  });

  it('the client secret is an ES256 JWT: kid = key id, iss = team id, sub = client id, aud = the issuer; reused while fresh', async () => {
    const before = o.apple.clientSecretsSeen.length;
    await signInWith(o, app(), 'apple', newAccount(o.apple).sub);
    await signInWith(o, app(), 'apple', newAccount(o.apple).sub);
    const seen = o.apple.clientSecretsSeen.slice(before);
    expect(seen).toHaveLength(2);
    const { key, clientId } = o.apps[0].apple;
    expect(decodeProtectedHeader(seen[0])).toMatchObject({ alg: 'ES256', kid: key.keyId });
    const claims = decodeJwt(seen[0]);
    expect(claims).toMatchObject({ iss: key.teamId, sub: clientId, aud: o.apple.issuer });
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(3600);
    expect(seen[1]).toBe(seen[0]);
  });

  it('returning user: the same subject again (no `user` field this time) → the same user', async () => {
    const account = newAccount(o.apple);
    const first = await signInWith(o, app(), 'apple', account.sub, { extraFields: { user: APPLE_USER } });
    const second = await signInWith(o, app(), 'apple', account.sub);
    expect((await me(o, second.browser, app())).json.user_id).toBe((await me(o, first.browser, app())).json.user_id);
  });

  it('a key the provider does not know signs the client secret → the provider refuses it → ?error=token_exchange_failed', async () => {
    const { clientId, key } = o.apps[0].apple;
    await configureApple(o.server, app(), { clientId, key: newAppleKey(key.teamId, key.keyId) });
    try {
      const { callback } = await signInWith(o, app(), 'apple', newAccount(o.apple).sub);
      expect(errorOf(callback)).toBe('token_exchange_failed');
      expect(setCookies(callback.headers).__session).toBeUndefined();
    } finally {
      await configureApple(o.server, app(), { clientId, key });
    }
    const { callback } = await signInWith(o, app(), 'apple', newAccount(o.apple).sub);
    expect(callback.location!.href).toBe(RETURN);
  });

  it('Apple sends email_verified as the string "true": treated as verified', async () => {
    const account = newAccount(o.apple, { email_verified: 'true' as unknown as boolean });
    const { browser } = await signInWith(o, app(), 'apple', account.sub);
    expect((await me(o, browser, app())).json.email_verified).toBe(true);
  });
});
