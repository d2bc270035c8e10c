import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open, seal } from '../../src/crypto/envelope.js';
import { outboxMailBinding } from '../../src/services/mail/outbox.js';
import { verifierBinding } from '../../src/services/oauth/sign-in.js';
import { execDatabase, queryDatabase, TEST_DB } from '../helpers/db.js';
import { api, cliJson, createApp, type TestApp } from '../helpers/fixtures.js';
import { runCli, startServer, type TestServer } from '../helpers/server.js';

// Issue 7, findings 4 (retired signing keys), 6 (secret-key grace), 8 (SMTP_URL on PostgreSQL) and
// 10 (master-key rotation). docs/operations.md and docs/api.md.

const MASTER_KEY = randomBytes(32).toString('base64');
// Nodes behind one load balancer share the issuer and the master key.
const shared = { PUBLIC_BASE_URL: 'https://auth.example.test', MASTER_KEY };
let server: TestServer;
let app: TestApp;

beforeAll(async () => {
  server = await startServer(shared);
  app = await createApp(server);
});
afterAll(async () => {
  await server?.stop();
});

const me = (target: TestServer, token: string) => api(target, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token });

async function newUserToken(expiresIn?: number): Promise<string> {
  const email = `keys.${randomBytes(4).toString('hex')}@example.com`;
  const user = await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email } });
  expect(user.status).toBe(201);
  const body = expiresIn === undefined ? { user_id: user.body.id } : { user_id: user.body.id, expires_in_seconds: expiresIn };
  const token = await api(server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body });
  expect(token.status).toBe(200);
  return token.body.token as string;
}

describe('finding 4: only the kids the JWKS publishes verify, on the service routes too', () => {
  it("a key retired longer ago than any token lives is gone from the JWKS and its tokens are refused by /v1/me", async () => {
    const token = await newUserToken();
    const oldKid = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid as string;
    await cliJson(server, ['app', 'rotate-keys', app.app_id]);
    // Age the retirement past the longest token lifetime, as time would.
    await execDatabase(server.databaseUrl, `UPDATE signing_keys SET retired_at = '2000-01-01T00:00:00.000Z' WHERE kid = '${oldKid}'`);
    const jwks = await api(server, 'GET', `/.well-known/jwks.json?app_id=${app.app_id}`);
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).not.toContain(oldKid);
    expect((await me(server, token)).status).toBe(401);
    // The current key still works.
    expect((await me(server, await newUserToken())).status).toBe(200);
  });

  it('a token living longer than the longest lifetime the service issues is refused (MAX_SIGNIN_TOKEN_LIFETIME_SECONDS lowered)', async () => {
    const long = await newUserToken(3600);
    const normal = await newUserToken(600);
    expect((await me(server, long)).status).toBe(200);
    // A second node on the same database whose cap is 600 s: the longest it issues is 15 minutes.
    const strict = await startServer({ ...shared, DATABASE_URL: server.databaseUrl, MAX_SIGNIN_TOKEN_LIFETIME_SECONDS: '600' });
    try {
      expect((await me(strict, long)).status).toBe(401);
      expect((await me(strict, normal)).status).toBe(200);
    } finally {
      await strict.stop();
    }
  });
});

describe('finding 6: a grace period only ever shortens', () => {
  it('a second rotate-secret with a long grace does not extend the first one\'s short grace', async () => {
    const own = await createApp(server);
    const first = await cliJson<TestApp>(server, ['app', 'rotate-secret', own.app_id, '--keep-old-for', '1']);
    const second = await cliJson<TestApp>(server, ['app', 'rotate-secret', own.app_id, '--keep-old-for', '3600']);
    const list = (key: string) => api(server, 'GET', '/v1/users', { bearer: key });
    // The original key goes when the first, 1-second grace ends (about a second from now), not in an hour.
    const deadline = Date.now() + 10_000;
    while ((await list(own.secret_key)).status === 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect((await list(own.secret_key)).status).toBe(401);
    expect((await list(first.secret_key)).status).toBe(200);
    expect((await list(second.secret_key)).status).toBe(200);
  });
});

describe('finding 8: PostgreSQL never writes codes into the log by accident', () => {
  it('serve on PostgreSQL without SMTP_URL refuses to start, naming SMTP_URL; SMTP_URL=log: opts in', async () => {
    const env = { ...shared, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', SMTP_URL: '', PORT: '0' };
    const refused = await runCli(['serve'], env, server.dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/SMTP_URL/);
    expect(refused.stderr).toMatch(/log:/);
    // With log: the configuration passes (the command then fails on the unreachable database, not on SMTP_URL).
    const optedIn = await runCli(['migrate'], { ...env, SMTP_URL: 'log:' }, server.dir);
    expect(optedIn.stderr).not.toMatch(/SMTP_URL/);
  });
});

describe('finding 10: gatehouse master-key rotate', () => {
  it('re-seals every signing key under the new key; the service then runs on the new key alone', async () => {
    const own = await createApp(server);
    const token = await newUserToken();
    const newKey = randomBytes(32).toString('base64');
    // An OAuth client secret, sealed like the signing keys.
    const put = await api(server, 'PUT', '/v1/oauth/providers/google', { bearer: own.secret_key, body: { client_id: 'rotation.apps.googleusercontent.com', client_secret: 'GOCSPX-rotation-secret' } });
    expect(put.status).toBe(200);
    const providerBefore = await queryDatabase(server.databaseUrl, `SELECT secret_sealed FROM oauth_providers WHERE app_id = '${own.app_id}'`);
    const before = await queryDatabase(server.databaseUrl, 'SELECT id, private_key_sealed FROM signing_keys ORDER BY id');
    // A given-up email and a live OAuth state sealed under the old key (as a node would have left them), and
    // an email sealed under a key dropped long ago, which no rotation can open.
    const oldKey = Buffer.from(MASTER_KEY, 'base64');
    const mailId = randomUUID();
    const lostMailId = randomUUID();
    const stateHash = randomBytes(32).toString('hex');
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 600_000).toISOString();
    const outboxRow = (id: string, sealed: string) =>
      `INSERT INTO mail_outbox (id, app_id, sealed, attempts, created_at, next_attempt_at, give_up_at, gave_up_at) VALUES ('${id}', '${own.app_id}', '${sealed}', 3, '${now}', '${now}', '${now}', '${now}')`;
    await execDatabase(server.databaseUrl, outboxRow(mailId, seal(oldKey, '{"to":"a@example.com"}', outboxMailBinding(mailId))));
    await execDatabase(server.databaseUrl, outboxRow(lostMailId, seal(randomBytes(32), '{"to":"b@example.com"}', outboxMailBinding(lostMailId))));
    await execDatabase(
      server.databaseUrl,
      `INSERT INTO oauth_states (state_hash, app_id, provider, code_verifier_sealed, nonce, redirect_url, expires_at, created_at) VALUES ('${stateHash}', '${own.app_id}', 'google', '${seal(oldKey, 'verifier-123', verifierBinding(stateHash))}', 'n', 'http://localhost:5173/', '${later}', '${now}')`,
    );
    // Without MASTER_KEY_PREVIOUS it says what to set.
    const missing = await server.cli(['master-key', 'rotate', '--json'], { MASTER_KEY: newKey });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/MASTER_KEY_PREVIOUS/);
    // During the rotation a node holding both keys serves, and seals new keys under the new one.
    const during = await startServer({ ...shared, DATABASE_URL: server.databaseUrl, MASTER_KEY: newKey, MASTER_KEY_PREVIOUS: MASTER_KEY });
    try {
      const fresh = await cliJson<TestApp>(during, ['app', 'create', '--tenant', own.tenant_id, '--name', 'During rotation']);
      const rotated = await during.cli(['master-key', 'rotate', '--batch-size', '2', '--json']);
      expect(rotated.code, rotated.stderr).toBe(0);
      const report = JSON.parse(rotated.stdout);
      expect(report.by_source.signing_keys).toEqual({ resealed: before.length, current: 1, unopenable: 0 }); // current: the app created during the rotation
      expect(report.by_source.oauth_providers).toEqual({ resealed: 1, current: 0, unopenable: 0 });
      expect(report.by_source.mail_outbox).toMatchObject({ resealed: 1, unopenable: 1 });
      expect(report.by_source.oauth_states).toMatchObject({ resealed: 1, unopenable: 0 });
      // Every sealed column of the schema is covered, so nothing is left that only the old key opens.
      const sealedColumns = await queryDatabase(
        server.databaseUrl,
        TEST_DB === 'sqlite'
          ? "SELECT m.name AS t FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND p.name LIKE '%sealed%'"
          : "SELECT table_name AS t FROM information_schema.columns WHERE table_schema = current_schema() AND column_name LIKE '%sealed%'",
      );
      expect(new Set(Object.keys(report.by_source))).toEqual(new Set(sealedColumns.map((row) => row.t)));
      // Running it again (as after an interruption) finds nothing left to do.
      const again = JSON.parse((await during.cli(['master-key', 'rotate', '--json'])).stdout);
      expect(again).toMatchObject({ resealed: 0 });
      expect(again.by_source.signing_keys).toEqual({ resealed: 0, current: before.length + 1, unopenable: 0 });
      expect(fresh.app_id).toMatch(/^app_/);
    } finally {
      await during.stop();
    }
    const after = await queryDatabase(server.databaseUrl, 'SELECT id, private_key_sealed FROM signing_keys ORDER BY id');
    for (const row of before) expect(after.find((r) => r.id === row.id)?.private_key_sealed).not.toBe(row.private_key_sealed);
    const providerAfter = await queryDatabase(server.databaseUrl, `SELECT secret_sealed FROM oauth_providers WHERE app_id = '${own.app_id}'`);
    expect(providerAfter[0].secret_sealed).not.toBe(providerBefore[0].secret_sealed);
    // The email and the PKCE verifier now open with the new key alone.
    const mail = await queryDatabase(server.databaseUrl, `SELECT sealed FROM mail_outbox WHERE id = '${mailId}'`);
    expect(open(Buffer.from(newKey, 'base64'), mail[0].sealed as string, outboxMailBinding(mailId))).toBe('{"to":"a@example.com"}');
    const state = await queryDatabase(server.databaseUrl, `SELECT code_verifier_sealed FROM oauth_states WHERE state_hash = '${stateHash}'`);
    expect(open(Buffer.from(newKey, 'base64'), state[0].code_verifier_sealed as string, verifierBinding(stateHash))).toBe('verifier-123');
    // A node with only the new key signs and verifies with every app's key.
    const only = await startServer({ ...shared, DATABASE_URL: server.databaseUrl, MASTER_KEY: newKey });
    try {
      expect((await me(only, token)).status).toBe(200);
      const signIn = await api(only, 'POST', '/v1/users', { bearer: app.secret_key, body: { email: `after.${Date.now()}@example.com`, password: 'correct horse battery' } });
      expect(signIn.status).toBe(201);
      const session = await api(only, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: signIn.body.email, password: 'correct horse battery' } });
      expect(session.status).toBe(200);
      expect((await me(only, session.body.access_token)).status).toBe(200);
    } finally {
      await only.stop();
    }
  });
});
