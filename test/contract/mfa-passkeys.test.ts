import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { queryDatabase } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { passwordChallenge, userWithTotp } from '../helpers/mfa.js';
import { softwareRegistration } from '../helpers/software-passkey.js';

// docs/mfa.md, passkeys over HTTP on both databases: the relying party, the options, and every refusal
// (the real ceremonies run in Chromium: test/browser/passkeys.test.ts).

let env: AuthEnv;
let app: TestApp;
let domainApp: TestApp;
let bare: TestApp;
const ORIGIN = 'http://localhost:3000';

beforeAll(async () => {
  env = await sharedAuthServer();
  app = await createApp(env.server, { args: ['--allowed-origin', ORIGIN, '--allowed-origin', 'https://second.example.com'] });
  domainApp = await createApp(env.server, { args: ['--domain', `auth${Date.now()}.example.com`] });
  bare = await createApp(env.server);
});
afterAll(async () => {
  await env?.stop();
});

const as = (target: TestApp, token: string) => ({ publishableKey: target.publishable_key, bearer: token });
/** A credential-shaped body that no authenticator signed. */
const forged = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'oA' }, clientExtensionResults: {} };

describe('passkey registration options', () => {
  it("the relying party is the first allowed origin's host, or the verified domain; a discoverable credential with user verification", async () => {
    const user = await verifiedUser(env, app);
    const res = await api(env.server, 'POST', '/v1/me/passkeys/options', as(app, user.tokens.access_token));
    expect(res.status).toBe(200);
    expect(res.body.challenge_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.options.rp.id).toBe('localhost');
    expect(res.body.options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    expect(res.body.options.user.name).toBe(user.email);
    const [row] = await queryDatabase(env.server.databaseUrl, `select purpose, user_id, challenge from webauthn_challenges where id = '${res.body.challenge_id}'`);
    expect(row).toEqual({ purpose: 'register', user_id: user.userId, challenge: res.body.options.challenge });

    const onDomain = await verifiedUser(env, domainApp);
    const domainOptions = await api(env.server, 'POST', '/v1/me/passkeys/options', as(domainApp, onDomain.tokens.access_token));
    expect(domainOptions.body.options.rp.id).toMatch(/^auth\d+\.example\.com$/);
  });

  it('an app with neither a verified domain nor an allowed origin: a clear 400', async () => {
    const user = await verifiedUser(env, bare);
    const res = await api(env.server, 'POST', '/v1/me/passkeys/options', as(bare, user.tokens.access_token));
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/verified domain or an allowed origin/);
  });

  it('a credential that does not verify is 400, spends its challenge and stores nothing', async () => {
    const user = await verifiedUser(env, app);
    const auth = as(app, user.tokens.access_token);
    const { body } = await api(env.server, 'POST', '/v1/me/passkeys/options', auth);
    const bad = await api(env.server, 'POST', '/v1/me/passkeys', { ...auth, body: { challenge_id: body.challenge_id, credential: forged } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toEqual(['detail', 'code']);
    const again = await api(env.server, 'POST', '/v1/me/passkeys', { ...auth, body: { challenge_id: body.challenge_id, credential: forged } });
    expect(again.status).toBe(400);
    expect(again.body.detail).toMatch(/challenge_id/);
    expect((await api(env.server, 'GET', '/v1/me/factors', auth)).body.factors).toEqual([]);
    for (const broken of [{}, { challenge_id: body.challenge_id }, { challenge_id: 'x', credential: forged }, { challenge_id: body.challenge_id, credential: { ...forged, type: 'other' } }]) {
      expect((await api(env.server, 'POST', '/v1/me/passkeys', { ...auth, body: broken })).status).toBe(400);
    }
  });

  it("another user's challenge_id is refused (400); another app's key is 401", async () => {
    const owner = await verifiedUser(env, app);
    const thief = await verifiedUser(env, app);
    const { body } = await api(env.server, 'POST', '/v1/me/passkeys/options', as(app, owner.tokens.access_token));
    expect((await api(env.server, 'POST', '/v1/me/passkeys', { ...as(app, thief.tokens.access_token), body: { challenge_id: body.challenge_id, credential: forged } })).status).toBe(400);
    expect((await api(env.server, 'POST', '/v1/me/passkeys/options', as(bare, owner.tokens.access_token))).status).toBe(401);
    const [row] = await queryDatabase(env.server.databaseUrl, `select used_at from webauthn_challenges where id = '${body.challenge_id}'`);
    expect(row!.used_at).toBeNull();
  });
});

describe('a credential id registered twice', () => {
  /** Options, then the registration of `credentialId` by a software authenticator. */
  async function register(token: string, credentialId: Buffer) {
    const auth = as(app, token);
    const { body } = await api(env.server, 'POST', '/v1/me/passkeys/options', auth);
    return api(env.server, 'POST', '/v1/me/passkeys', { ...auth, body: { challenge_id: body.challenge_id, credential: softwareRegistration(body.options, ORIGIN, credentialId) } });
  }
  const factorRows = (userId: string) => queryDatabase(env.server.databaseUrl, `select id from mfa_factors where user_id = '${userId}'`);

  it('is 409 (was 500), by its owner or by another user of the app, and changes nothing', async () => {
    const owner = await verifiedUser(env, app);
    const other = await verifiedUser(env, app);
    const credentialId = randomBytes(16);
    const first = await register(owner.tokens.access_token, credentialId);
    expect(first.status).toBe(201);
    expect(first.body.recovery_codes).toHaveLength(10);
    await env.sink.waitFor(owner.email, { count: 2 });

    const again = await register(first.body.access_token, credentialId);
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already registered/);
    const copied = await register(other.tokens.access_token, credentialId);
    expect(copied.status).toBe(409);
    // No factor, recovery codes or notice for the copier; the owner still has exactly one passkey.
    expect(await factorRows(other.userId)).toEqual([]);
    expect(await queryDatabase(env.server.databaseUrl, `select id from mfa_recovery_codes where user_id = '${other.userId}'`)).toEqual([]);
    expect(await factorRows(owner.userId)).toHaveLength(1);
    const mine = await api(env.server, 'GET', '/v1/me/factors', as(app, other.tokens.access_token));
    expect(mine.body).toMatchObject({ factors: [], recovery_codes_remaining: 0 });

    // The same id in another app is another app's credential.
    const second = await createApp(env.server, { args: ['--allowed-origin', ORIGIN] });
    const elsewhere = await verifiedUser(env, second);
    const { body } = await api(env.server, 'POST', '/v1/me/passkeys/options', as(second, elsewhere.tokens.access_token));
    const res = await api(env.server, 'POST', '/v1/me/passkeys', {
      ...as(second, elsewhere.tokens.access_token),
      body: { challenge_id: body.challenge_id, credential: softwareRegistration(body.options, ORIGIN, credentialId) },
    });
    expect(res.status).toBe(201);
  });
});

describe('passkey sign-in and second factor', () => {
  it('sign-in options name no user; an unknown credential, a forged one, a used or another app\'s challenge_id are 401', async () => {
    const options = await api(env.server, 'POST', '/v1/passkeys/signin/options', { publishableKey: app.publishable_key });
    expect(options.status).toBe(200);
    expect(options.body.options).toMatchObject({ rpId: 'localhost', userVerification: 'required' });
    expect(options.body.options.allowCredentials ?? []).toEqual([]);
    const first = await api(env.server, 'POST', '/v1/passkeys/signin', { publishableKey: app.publishable_key, body: { challenge_id: options.body.challenge_id, credential: forged } });
    expect(first.status).toBe(401);
    expect((await api(env.server, 'POST', '/v1/passkeys/signin', { publishableKey: app.publishable_key, body: { challenge_id: options.body.challenge_id, credential: forged } })).status).toBe(401);
    const elsewhere = await api(env.server, 'POST', '/v1/passkeys/signin/options', { publishableKey: domainApp.publishable_key });
    expect((await api(env.server, 'POST', '/v1/passkeys/signin', { publishableKey: app.publishable_key, body: { challenge_id: elsewhere.body.challenge_id, credential: forged } })).status).toBe(401);
    expect((await api(env.server, 'POST', '/v1/passkeys/signin/options', { publishableKey: bare.publishable_key })).status).toBe(400);
  });

  it('second-factor options: 400 for a user without a passkey, 401 for an unknown mfa_token; a forged passkey counts as a wrong guess', async () => {
    const user = await userWithTotp(env, app);
    const token = await passwordChallenge(env.server, app, user.email, user.password);
    const noPasskey = await api(env.server, 'POST', '/v1/mfa/passkey/options', { publishableKey: app.publishable_key, body: { mfa_token: token } });
    expect(noPasskey.status).toBe(400);
    expect((await api(env.server, 'POST', '/v1/mfa/passkey/options', { publishableKey: app.publishable_key, body: { mfa_token: 'mfa_unknown' } })).status).toBe(401);
    expect((await api(env.server, 'POST', '/v1/mfa/passkey/options', { publishableKey: domainApp.publishable_key, body: { mfa_token: token } })).status).toBe(401);
    const guess = await api(env.server, 'POST', '/v1/mfa/verify', { publishableKey: app.publishable_key, body: { mfa_token: token, passkey: forged } });
    expect(guess.status).toBe(400);
    const [row] = await queryDatabase(env.server.databaseUrl, `select attempts from mfa_challenges where user_id = '${user.userId}'`);
    expect(Number(row!.attempts)).toBe(1);
  });
});
