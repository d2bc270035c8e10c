import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, startAuthServer, uniqueEmail, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { confirmedChallenge, newBotKeys, startSim, type ConfirmationsSim } from '../helpers/confirmations.js';
import { execDatabase, TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';

// docs/users.md: GET /v1/users answers {users, total}. `total` is the app's kept count (store/repos/
// user-counts.ts), changed in the transaction of every user insert and delete, so it stays exact under
// concurrent creations and costs the same at a million users; with `email` it is 0 or 1.

let sim: ConfirmationsSim;
let env: AuthEnv;
let appA: TestApp;

beforeAll(async () => {
  sim = await startSim();
  env = await startAuthServer({ CONFIRMATIONS_URL: sim.url, RATE_LIMITS: '' });
  appA = await createApp(env.server, { name: 'A', args: ['--domain', 'a.example.test'] });
});
afterAll(async () => {
  await env?.stop();
  await sim?.close();
});

const secret = (app: TestApp, method: string, path: string, body?: unknown) => api(env.server, method, path, { bearer: app.secret_key, body });
const total = async (app: TestApp, query = '') => {
  const res = await secret(app, 'GET', `/v1/users${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.total as number;
};
const createUser = async (app: TestApp, email = uniqueEmail()) => secret(app, 'POST', '/v1/users', { email, password: 'correct horse battery' });

describe('4.5 GET /v1/users: total is always answered', () => {
  it('counts every way a user arrives (POST /v1/users, sign-up, bot, SSO) and every deletion; a refused creation counts nothing', async () => {
    const app = await createApp(env.server, { tenantId: appA.tenant_id, name: 'B', args: ['--domain', 'b.example.test'] });
    expect((await secret(app, 'GET', '/v1/users')).body).toEqual({ users: [], total: 0, next_cursor: null });

    const made = await createUser(app);
    expect(made.status).toBe(201);
    expect(await total(app)).toBe(1);
    // 409: the insert failed, and its count with it.
    expect((await createUser(app, made.body.email)).status).toBe(409);
    expect(await total(app)).toBe(1);

    const email = uniqueEmail('self');
    expect((await signUp(env.server, app, { email, password: 'correct horse battery' })).status).toBe(200);
    expect(await total(app)).toBe(2);

    const bot = await api(env.server, 'POST', '/v1/bot/signup', { publishableKey: app.publishable_key, body: { challenge_id: await confirmedChallenge(sim), public_key: newBotKeys().publicKey } });
    expect(bot.status, JSON.stringify(bot.body)).toBe(200);
    expect(await total(app)).toBe(3);

    // SSO from A makes the user in B (this app) on the first exchange, and never twice.
    const token = (await verifiedUser(env, appA)).tokens.access_token as string;
    for (let i = 0; i < 2; i++) {
      const bridge = await api(env.server, 'GET', `/v1/sso/bridge?return_to=${encodeURIComponent('https://b.example.test/cb')}`, { headers: { host: 'a.example.test' }, bearer: token });
      expect(bridge.status).toBe(302);
      const sso = new URL(bridge.headers.get('location')!).searchParams.get('__sso_token');
      expect((await api(env.server, 'POST', '/v1/sso/exchange', { publishableKey: app.publishable_key, body: { token: sso } })).status).toBe(200);
      expect(await total(app)).toBe(4);
    }

    // The page does not change the total; include_total is still accepted (and changes nothing).
    expect(await total(app, '?limit=1&offset=2')).toBe(4);
    expect(await total(app, '?include_total=false')).toBe(4);
    expect(await total(app, '?include_total=true')).toBe(4);
    // With email: 0 or 1, whatever the offset.
    expect(await total(app, `?email=${encodeURIComponent(email.toUpperCase())}`)).toBe(1);
    expect(await total(app, `?email=${encodeURIComponent(email)}&offset=1`)).toBe(1);
    expect(await total(app, '?email=nobody%40example.com')).toBe(0);

    expect((await secret(app, 'DELETE', `/v1/users/${made.body.id}`)).status).toBe(200);
    expect(await total(app)).toBe(3);
    expect((await secret(app, 'DELETE', `/v1/users/${bot.body.bot_id}`)).status).toBe(200);
    expect((await secret(app, 'DELETE', `/v1/users/${bot.body.bot_id}`)).status).toBe(404);
    expect(await total(app)).toBe(2);
    // Another app's count is its own.
    expect(await total(appA)).toBe(1);
  });

  it(`concurrent creations, sign-ups and deletions end with the exact count (${TEST_DB})`, async () => {
    const app = await createApp(env.server, { tenantId: appA.tenant_id, name: 'Busy' });
    const emails = Array.from({ length: 40 }, () => uniqueEmail('busy'));
    const contested = uniqueEmail('race');
    const created = await Promise.all([
      ...emails.map((email) => createUser(app, email)),
      // Ten creations race for one address: one wins.
      ...Array.from({ length: 10 }, () => createUser(app, contested)),
      ...Array.from({ length: 8 }, () => signUp(env.server, app, { email: uniqueEmail('selfbusy'), password: 'correct horse battery' })),
    ]);
    expect(created.filter((res) => res.status === 201)).toHaveLength(41);
    expect(created.filter((res) => res.status === 409)).toHaveLength(9);
    expect(await total(app)).toBe(49);
    const ids = created.slice(0, 20).map((res) => res.body.id as string);
    const deleted = await Promise.all([...ids, ...ids.slice(0, 5)].map((id) => secret(app, 'DELETE', `/v1/users/${id}`)));
    expect(deleted.filter((res) => res.status === 200), JSON.stringify(deleted.filter((res) => res.status !== 200 && res.status !== 404).map((res) => [res.status, res.body]))).toHaveLength(20);
    expect(await total(app)).toBe(29);
    // The count is what the rows say.
    const listed = (await secret(app, 'GET', '/v1/users?limit=200')).body.users;
    expect(listed).toHaveLength(29);
  });

  it('the migration fills the count from the users already there', async () => {
    const app = await createApp(env.server, { tenantId: appA.tenant_id, name: 'Before' });
    for (let i = 0; i < 3; i++) expect((await createUser(app)).status).toBe(201);
    // As a database before migration 0027: no count table, the migration not applied.
    await execDatabase(env.server.databaseUrl, 'drop table user_counts');
    await execDatabase(env.server.databaseUrl, "delete from kysely_migration where name = '0027-user-counts'");
    const migrated = await env.server.cli(['migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(await total(app)).toBe(3);
    expect(await total(appA)).toBeGreaterThanOrEqual(1);
  });
});
