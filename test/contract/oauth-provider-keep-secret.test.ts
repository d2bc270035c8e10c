import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { ADMIN_TOKEN, consoleApp, consoleUser, manage, tenantOwnedBy, type ConsoleUser } from '../helpers/console.js';
import { queryDatabase } from '../helpers/db.js';
import type { TestApp } from '../helpers/fixtures.js';
import { errorOf, me, newAccount, RETURN, signInWith, SITE } from '../helpers/oauth.js';
import { createIssuer, newAppleKey, type TestIssuer } from '../helpers/oidc-provider.js';

// docs/oauth.md, "Configure the app": a PUT that omits the client secret (or Apple's private key) of a provider
// the app has configured keeps the stored one, so an edit need not retype it (the console's provider form);
// the first PUT still needs it, an empty one is still a 400. Here through a tenant member's token and
// X-App-Id, as the console sends it: the kept secret is the one the token exchange at a real OpenID
// provider (oidc-provider on loopback, client_secret_basic) then uses; another tenant's token → 404.

let env: AuthEnv;
let idp: TestIssuer;
let owner: ConsoleUser;
let outsider: ConsoleUser;
let appId: string;
let shop: TestApp;
const ACME = { clientId: 'gatehouse-acme', clientSecret: 'acme-secret-kept-0123456789' };
const body = (extra: Record<string, unknown> = {}) => ({ issuer: idp.issuer, client_id: ACME.clientId, display_name: 'Acme SSO', ...extra });

beforeAll(async () => {
  idp = await createIssuer('oidc', [ACME]);
  env = await startAuthServer({ OIDC_ALLOW_LOOPBACK_ISSUERS: 'true', ADMIN_TOKEN });
  await idp.start(`${env.server.url}/v1/oauth/oidc-acme/callback`);
  const console_ = await consoleApp(env.server);
  owner = await consoleUser(env, console_, 'owner');
  outsider = await consoleUser(env, console_, 'outsider');
  const tenantId = await tenantOwnedBy(env, owner, 'Acme');
  await tenantOwnedBy(env, outsider, 'Other');
  const app = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Shop', allowed_origins: [SITE], hashcash_difficulty: 0 });
  expect(app.status, JSON.stringify(app.body)).toBe(201);
  appId = app.body.app_id;
  shop = app.body as TestApp;
}, 180_000);
afterAll(async () => {
  await env?.stop();
  await idp?.stop();
});

const put = (provider: string, payload: unknown, credential = owner.token) => manage(env.server, credential, 'PUT', `/v1/oauth/providers/${provider}`, payload, appId);
const list = async () => (await manage(env.server, owner.token, 'GET', '/v1/oauth/providers', undefined, appId)).body.providers as Record<string, unknown>[];
const sealedOf = async (provider: string) => (await queryDatabase(env.server.databaseUrl, `select secret_sealed from oauth_providers where app_id = '${appId}' and provider = '${provider}'`))[0]?.secret_sealed;
const updates = async () => (await manage(env.server, owner.token, 'GET', '/v1/events?type=oauth_provider.updated&limit=100', undefined, appId)).body.events as { data: { provider: string } }[];

/** A whole sign-in through oidc-acme: the callback's answer and, when it signed the person in, their email. */
async function signIn(): Promise<{ error: string | null; email?: string }> {
  const account = newAccount(idp);
  const { callback, browser } = await signInWith({ server: env.server }, shop, 'oidc-acme', account.sub);
  const error = errorOf(callback, RETURN);
  return error ? { error } : { error, email: (await me({ server: env.server }, browser, shop)).json.email as string };
}

describe('a provider update without its secret keeps the stored one', () => {
  it('a first PUT without the secret → 400, nothing stored; with it → 200 and a sign-in works', async () => {
    const first = await put('oidc-acme', body());
    expect(first.status).toBe(400);
    expect(first.body).toMatchObject({ code: 'validation_failed', detail: expect.stringMatching(/client_secret is required/) });
    expect(await list()).toEqual([]);
    expect((await put('oidc-acme', body({ client_secret: ACME.clientSecret }))).status).toBe(200);
    expect((await signIn()).email).toMatch(/@example\.com$/);
  });

  it('an update of the scopes without the secret → 200, its event written, the stored secret unchanged and still the one the token exchange uses', async () => {
    const sealed = await sealedOf('oidc-acme');
    const before = (await updates()).length;
    const res = await put('oidc-acme', body({ scopes: ['email', 'groups'], display_name: 'Acme' }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ provider: 'oidc-acme', display_name: 'Acme', client_secret: '****', scopes: ['openid', 'email', 'groups'] });
    expect(await sealedOf('oidc-acme')).toBe(sealed);
    const events = await updates();
    expect(events).toHaveLength(before + 1);
    expect(events[0]!.data).toEqual({ provider: 'oidc-acme' });
    expect((await signIn()).email).toMatch(/@example\.com$/);
    // The exchange really sends the stored secret: a wrong one typed in fails the next sign-in.
    expect((await put('oidc-acme', body({ client_secret: 'not-the-secret' }))).status).toBe(200);
    expect((await signIn()).error).not.toBeNull();
    expect((await put('oidc-acme', body({ client_secret: ACME.clientSecret }))).status).toBe(200);
    expect((await signIn()).email).toMatch(/@example\.com$/);
  });

  it('an empty secret → 400 and nothing changes; a built-in provider and Apple keep theirs too', async () => {
    const sealed = await sealedOf('oidc-acme');
    const empty = await put('oidc-acme', body({ client_secret: '' }));
    expect(empty.status).toBe(400);
    expect(await sealedOf('oidc-acme')).toBe(sealed);
    expect((await put('github', { client_id: 'gh-1', client_secret: 'gh-secret' })).status).toBe(200);
    const github = await sealedOf('github');
    const edited = await put('github', { client_id: 'gh-2', scopes: ['read:org'] });
    expect(edited.body).toMatchObject({ client_id: 'gh-2', client_secret: '****', scopes: ['user:email', 'read:org'] });
    expect(await sealedOf('github')).toBe(github);
    const key = newAppleKey('TEAMA12345', 'KEYA123456');
    expect((await put('apple', { client_id: 'com.example.web', team_id: key.teamId, key_id: key.keyId })).status).toBe(400);
    expect((await put('apple', { client_id: 'com.example.web', team_id: key.teamId, key_id: key.keyId, private_key: key.privateKeyPem })).status).toBe(200);
    const apple = await sealedOf('apple');
    const renamed = await put('apple', { client_id: 'com.example.app', team_id: key.teamId, key_id: key.keyId });
    expect(renamed.body).toMatchObject({ client_id: 'com.example.app', private_key: '****' });
    expect(await sealedOf('apple')).toBe(apple);
  });

  it("another tenant's token → 404 on the update, and nothing changes", async () => {
    const before = await list();
    const res = await put('oidc-acme', body({ scopes: ['email'] }), outsider.token);
    expect(res.status).toBe(404);
    expect(typeof res.body.detail).toBe('string');
    expect(await list()).toEqual(before);
  });
});
