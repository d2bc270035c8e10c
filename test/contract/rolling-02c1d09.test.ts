import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECOND_FACTOR_MARK } from '../../src/crypto/passwords.js';
import { queryDatabase, TEST_DB } from '../helpers/db.js';
import { earlierRelease } from '../helpers/earlier-release.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { enrollTotp, passwordChallenge } from '../helpers/mfa.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Beside 02c1d09: no (docs/upgrading.md). The one promise a release already shipped allows: release 02c1d09,
// which knows nothing of second factors, answers 401 to the password of a user who has one, whatever the
// rollout. 02c1d09 is built from its commit (test/helpers/earlier-release.ts, cached), started first on a
// fresh PostgreSQL database, then HEAD migrates the same database while 02c1d09 keeps serving it, as the
// operator of issue 55 ran them.
const OLD = '02c1d09';
const PASSWORD = 'correct horse battery';

describe.skipIf(TEST_DB !== 'postgres')('release 02c1d09 beside HEAD: a second factor fails closed on the old node', () => {
  let old: TestServer;
  let head: TestServer;
  let app: TestApp;
  const shared = { RATE_LIMITS: 'off', PUBLIC_BASE_URL: 'https://auth.example.test' };

  beforeAll(async () => {
    const bin = earlierRelease(OLD);
    old = await startServer(shared, { bin });
    head = await startServer({ ...shared, DATABASE_URL: old.databaseUrl, MASTER_KEY: old.env.MASTER_KEY });
    app = await createApp(head);
  }, 240_000);
  afterAll(async () => {
    await head?.stop();
    await old?.stop();
  });

  const signIn = (node: TestServer, email: string, password = PASSWORD) => api(node, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password } });

  async function user(name: string) {
    const email = `${name}.${Date.now().toString(36)}@example.com`;
    const created = await api(head, 'POST', '/v1/users', { bearer: app.secret_key, body: { email, password: PASSWORD } });
    expect(created.status).toBe(201);
    // Enrolling a factor needs a verified email.
    expect((await api(head, 'PATCH', `/v1/users/${created.body.id}`, { bearer: app.secret_key, body: { email_verified: true } })).status).toBe(200);
    return email;
  }
  const storedHash = async (email: string) =>
    (await queryDatabase(old.databaseUrl, `select password_hash from users where email_normalized = '${email}'`))[0]!.password_hash as string;

  it('the old node is 02c1d09 and serves the migrated database: a user without a factor signs in there with the password', async () => {
    expect((await api(old, 'GET', '/v1/health')).body).toEqual({ status: 'ok', version: 'v0.1' });
    const email = await user('plain');
    const res = await signIn(old, email);
    expect(res.status).toBe(200);
    expect(res.body.access_token).toEqual(expect.any(String));
    expect((await api(head, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: res.body.access_token })).status).toBe(200);
  });

  it('a user who enrolled TOTP on HEAD gets 401 for the right password on 02c1d09, the MFA challenge on HEAD; a password change and the factor removal keep it so, then undo it', async () => {
    const email = await user('totp');
    const first = await signIn(head, email);
    expect(first.status).toBe(200);
    const totp = await enrollTotp(head, app, first.body.access_token);
    expect((await storedHash(email)).startsWith(`${SECOND_FACTOR_MARK}$argon2id$`)).toBe(true);

    const refused = await signIn(old, email);
    expect(refused.status).toBe(401);
    // 02c1d09's own answer to a wrong password (it had no error codes yet).
    expect(refused.body).toEqual({ detail: 'invalid email or password' });
    expect(refused.body.access_token).toBeUndefined();
    await passwordChallenge(head, app, email, PASSWORD);

    // A new password set on HEAD while the factor stays: still refused on the old node, still challenged on HEAD.
    const changed = await api(head, 'POST', '/v1/me/password', { publishableKey: app.publishable_key, bearer: totp.accessToken, body: { current_password: PASSWORD, new_password: 'another horse battery' } });
    expect(changed.status).toBe(200);
    expect((await signIn(old, email, 'another horse battery')).status).toBe(401);
    expect((await signIn(old, email, PASSWORD)).status).toBe(401);
    await passwordChallenge(head, app, email, 'another horse battery');

    // The last factor removed on HEAD: the user has none, and the old node lets the password in again.
    const removed = await api(head, 'DELETE', `/v1/me/factors/${totp.factorId}`, { publishableKey: app.publishable_key, bearer: totp.accessToken });
    expect(removed.status).toBe(200);
    expect(await storedHash(email)).toMatch(/^\$argon2id\$/);
    expect((await signIn(old, email, 'another horse battery')).status).toBe(200);
    const plain = await signIn(head, email, 'another horse battery');
    expect(plain.status).toBe(200);
    expect(plain.body.mfa_required).toBeUndefined();
  });
});
