import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies, signUp, uniqueEmail } from '../helpers/accounts.js';
import { execDatabase, queryDatabase, TEST_DB } from '../helpers/db.js';
import { api, cliJson, createApp, type TestApp } from '../helpers/fixtures.js';
import { createBucket, getObject, objectPath, putObject, random, startObjectServer, STORES, type ObjectEnv } from '../helpers/objects.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { asSecret, call, insertRow, makeTable, storage as tableStorage } from '../helpers/tables.js';
import { agedAccessToken, rowsNaming } from '../helpers/user-data.js';

// docs/privacy.md: DELETE /v1/users/{id}, DELETE /v1/me and `gatehouse user delete`. What a deleted
// user owned is checked at rest, in every table of the database that names a user.

/** Tests that run the CLI: each command is a process of its own (seconds each on a busy machine). */
const CLI_TIMEOUT = 180_000;

interface Person {
  email: string;
  userId: string;
  token: string;
  sessionId: string;
  refreshToken: string;
}

/** A self sign-up (it leaves a verification code row) with a session minted by the secret key. */
async function person(server: TestServer, app: TestApp, email = uniqueEmail('del')): Promise<Person> {
  const signup = await signUp(server, app, { email, password: 'correct horse battery' });
  expect(signup.status, JSON.stringify(signup.body)).toBe(200);
  const minted = await api(server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: signup.body.user_id } });
  expect(minted.status).toBe(200);
  return { email, userId: signup.body.user_id, token: minted.body.token, sessionId: minted.body.session_id, refreshToken: minted.body.refresh_token };
}

const me = (server: TestServer, app: TestApp, token: string) => api(server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token });
const del = (server: TestServer, app: TestApp, userId: string, bearer = app.secret_key) => api(server, 'DELETE', `/v1/users/${userId}`, { bearer });

async function linkIdentity(server: TestServer, app: TestApp, userId: string): Promise<void> {
  const now = new Date().toISOString();
  await execDatabase(
    server.databaseUrl,
    `insert into oauth_identities (app_id, provider, subject, user_id, email, name, created_at, updated_at) values ('${app.app_id}', 'google', '${randomUUID()}', '${userId}', 'x@example.com', null, '${now}', '${now}')`,
  );
}

async function bucketFigures(env: ObjectEnv, app: TestApp) {
  const res = await api(env.server, 'GET', '/v1/buckets/storage', { bearer: app.secret_key });
  expect(res.status).toBe(200);
  return res.body as { used_bytes: number; buckets: { bucket_id: string; used_bytes: number; object_count: number }[] };
}

/**
 * The file store's server, which is a server of the default environment: the file-store deletions and the
 * self-deletion, CLI and racing tests share it (each makes its own apps), one server start fewer.
 */
let fileStoreServer: Promise<ObjectEnv> | undefined;
const fileStore = () => (fileStoreServer ??= startObjectServer('file'));
afterAll(async () => (await fileStoreServer?.catch(() => undefined))?.stop());

describe.each(STORES)('14 deleting a user (%s blob store)', (kind) => {
  let env: ObjectEnv;
  let app: TestApp;
  let other: TestApp;

  beforeAll(async () => {
    env = kind === 'file' ? await fileStore() : await startObjectServer(kind);
    app = await createApp(env.server);
    other = await createApp(env.server);
  });
  afterAll(async () => {
    if (kind !== 'file') await env?.stop();
  });

  it('14 delete: every row, object and blob, session, identity and code of the user is gone; the others untouched; figures exact; the email free again', async () => {
    const { server } = env;
    const alice = await person(server, app);
    const bob = await person(server, app);
    await linkIdentity(server, app, alice.userId);
    const second = await api(server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: alice.userId } });
    const t1 = await makeTable(server, asSecret(app), [{ name: 'n', type: 'int' }, { name: 'note', type: 'text' }]);
    const t2 = await makeTable(server, asSecret(app), [{ name: 'j', type: 'json' }]);
    const bobRow = await insertRow(server, asSecret(app), t1.table_id, { n: 1, note: 'bob' }, { user_id: bob.userId });
    const loose = await insertRow(server, asSecret(app), t1.table_id, { n: 2, note: 'nobody' });
    const b1 = await createBucket(server, app, undefined, { max_size_bytes_per_user: 300 });
    const b2 = await createBucket(server, app);
    expect((await putObject(server, app, b1.bucket_id, 'bob.bin', random(50), { query: `?user_id=${bob.userId}` })).status).toBe(200);
    expect((await putObject(server, app, b1.bucket_id, 'loose.bin', random(10))).status).toBe(200);
    const tablesBefore = await tableStorage(server, asSecret(app));
    const bucketsBefore = await bucketFigures(env, app);
    const blobsBefore = await env.blobCount(app.app_id);

    // Alice's rows (her own session and the secret key for her) and objects, up to her per-user cap.
    const aliceCaller = { bearer: alice.token, publishableKey: app.publishable_key };
    await insertRow(server, aliceCaller, t1.table_id, { n: 3, note: 'alice' });
    await insertRow(server, asSecret(app), t1.table_id, { n: 4 }, { user_id: alice.userId });
    await insertRow(server, aliceCaller, t2.table_id, { j: { deep: ['x'.repeat(500)] } });
    for (const [bucket, key, size] of [[b1, 'a.bin', 100], [b1, 'b/c.bin', 200], [b2, 'a.bin', 30]] as const) {
      const put = await putObject(server, app, bucket.bucket_id, key, random(size), { bearer: alice.token, publishableKey: app.publishable_key });
      expect(put.status).toBe(200);
    }
    expect((await putObject(server, app, b1.bucket_id, 'over.bin', random(1), { query: `?user_id=${alice.userId}` })).status).toBe(413);
    expect((await tableStorage(server, asSecret(app))).used_bytes).toBeGreaterThan(tablesBefore.used_bytes);
    expect(Object.keys(await rowsNaming(server, alice.userId)).sort()).toEqual(
      ['active_users', 'bucket_user_usage', 'email_challenges', 'oauth_identities', 'objects', 'sessions', `t_${t1.table_id.replace(/-/g, '')}`, `t_${t2.table_id.replace(/-/g, '')}`, 'users'].sort(),
    );

    const deleted = await del(server, app, alice.userId);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ status: 'deleted' });

    expect(await rowsNaming(server, alice.userId)).toEqual({});
    expect(await tableStorage(server, asSecret(app))).toEqual(tablesBefore);
    expect(await bucketFigures(env, app)).toEqual(bucketsBefore);
    expect(await env.blobCount(app.app_id)).toBe(blobsBefore);
    expect(await queryDatabase(server.databaseUrl, `select blob_id from blob_deletions where app_id = '${app.app_id}'`)).toEqual([]);
    // Her tokens: every session refused, the refresh token dead.
    expect((await me(server, app, alice.token)).status).toBe(401);
    expect((await me(server, app, second.body.token)).status).toBe(401);
    const refresh = await api(server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body: { refresh_token: alice.refreshToken } });
    expect(refresh.status).toBe(401);
    expect((await api(server, 'GET', `/v1/users/${alice.userId}`, { bearer: app.secret_key })).status).toBe(404);
    // Bob and the ownerless data are untouched.
    expect((await me(server, app, bob.token)).status).toBe(200);
    expect((await call(server, asSecret(app), 'GET', `/v1/tables/${t1.table_id}/rows/${bobRow.row_id}`)).status).toBe(200);
    expect((await call(server, asSecret(app), 'GET', `/v1/tables/${t1.table_id}/rows/${loose.row_id}`)).status).toBe(200);
    expect((await getObject(server, app, b1.bucket_id, 'bob.bin', {}, `?user_id=${bob.userId}`)).status).toBe(200);
    expect((await getObject(server, app, b1.bucket_id, 'loose.bin')).status).toBe(200);
    // The email signs up again, as a new user whose per-user cap starts empty.
    const again = await person(server, app, alice.email);
    expect(again.userId).not.toBe(alice.userId);
    expect((await putObject(server, app, b1.bucket_id, 'a.bin', random(300), { query: `?user_id=${again.userId}` })).status).toBe(200);
  });

  it('14 delete: 404 when unknown, already deleted, or another app’s user; 401 without the secret key, 403 for a session', async () => {
    const { server } = env;
    const carol = await person(server, app);
    expect((await del(server, other, carol.userId)).status).toBe(404);
    expect((await del(server, app, randomUUID())).status).toBe(404);
    expect((await api(server, 'DELETE', `/v1/users/${carol.userId}`, {})).status).toBe(401);
    expect((await api(server, 'DELETE', `/v1/users/${carol.userId}`, { publishableKey: app.publishable_key, bearer: carol.token })).status).toBe(403);
    expect((await api(server, 'DELETE', '/v1/users/not-a-uuid', { bearer: app.secret_key })).status).toBe(400);
    expect((await me(server, app, carol.token)).status).toBe(200);
    expect((await del(server, app, carol.userId)).status).toBe(200);
    expect((await del(server, app, carol.userId)).status).toBe(404);
  });
});

describe('14 deleting one’s own account, the CLI, and writes racing a deletion', () => {
  let server: TestServer;
  let app: TestApp;
  let closed: TestApp;
  let otherApp: TestApp;
  const origin = 'https://shop.example.test';

  beforeAll(async () => {
    server = (await fileStore()).server;
    app = await createApp(server, { args: ['--allowed-origin', origin] });
    closed = await createApp(server, { args: ['--self-delete', 'off'] });
    otherApp = await createApp(server);
  });

  it('14 DELETE /v1/me: a fresh token deletes the account and clears the cookies; a cookie needs an allowed Origin', async () => {
    const dana = await person(server, app);
    const cookie = { cookie: `__session=${dana.token}` };
    const crossSite = await api(server, 'DELETE', '/v1/me', { publishableKey: app.publishable_key, headers: { ...cookie, origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(403);
    expect((await me(server, app, dana.token)).status).toBe(200);
    const res = await api(server, 'DELETE', '/v1/me', { publishableKey: app.publishable_key, headers: { ...cookie, origin } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ status: 'deleted' });
    const cleared = setCookies(res.headers);
    expect(cleared.__session).toMatchObject({ value: '', attributes: { 'max-age': '0' } });
    expect(cleared.__refresh).toMatchObject({ value: '', attributes: { 'max-age': '0', path: '/v1/tokens/session' } });
    expect(await rowsNaming(server, dana.userId)).toEqual({});
    expect((await me(server, app, dana.token)).status).toBe(401);
  });

  it('14 DELETE /v1/me: a token issued more than 10 minutes ago is refused with "sign in again"; 9 minutes is fresh', async () => {
    const erin = await person(server, app);
    const old = await agedAccessToken(server, app.app_id, { sub: erin.userId, sid: erin.sessionId, email: erin.email }, 11 * 60);
    expect((await me(server, app, old)).status).toBe(200);
    const refused = await api(server, 'DELETE', '/v1/me', { publishableKey: app.publishable_key, bearer: old });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('sign in again to delete your account');
    expect((await api(server, 'GET', `/v1/users/${erin.userId}`, { bearer: app.secret_key })).status).toBe(200);
    const fresh = await agedAccessToken(server, app.app_id, { sub: erin.userId, sid: erin.sessionId, email: erin.email }, 9 * 60);
    expect((await api(server, 'DELETE', '/v1/me', { publishableKey: app.publishable_key, bearer: fresh })).status).toBe(200);
    expect((await api(server, 'GET', `/v1/users/${erin.userId}`, { bearer: app.secret_key })).status).toBe(404);
  });

  it('14 DELETE /v1/me: --self-delete off answers 403 and deletes nothing; app update turns it back on', { timeout: CLI_TIMEOUT }, async () => {
    expect(closed.self_delete).toBe(false);
    expect(app.self_delete).toBe(true);
    const finn = await person(server, closed);
    const refused = await api(server, 'DELETE', '/v1/me', { publishableKey: closed.publishable_key, bearer: finn.token });
    expect(refused.status).toBe(403);
    expect((await me(server, closed, finn.token)).status).toBe(200);
    expect((await cliJson<TestApp>(server, ['app', 'update', closed.app_id, '--self-delete', 'on'])).self_delete).toBe(true);
    expect((await api(server, 'DELETE', '/v1/me', { publishableKey: closed.publishable_key, bearer: finn.token })).status).toBe(200);
    expect((await api(server, 'DELETE', '/v1/me', { publishableKey: closed.publishable_key, bearer: finn.token })).status).toBe(401);
  });

  it('14 gatehouse user delete APP USER: the same deletion; an unknown or another app’s user exits 1', { timeout: CLI_TIMEOUT }, async () => {
    const gus = await person(server, app);
    expect((await server.cli(['user', 'delete', otherApp.app_id, gus.userId])).code).toBe(1);
    expect(await cliJson(server, ['user', 'delete', app.app_id, gus.userId])).toEqual({ status: 'deleted' });
    expect(await rowsNaming(server, gus.userId)).toEqual({});
    const again = await server.cli(['user', 'delete', app.app_id, gus.userId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('user not found');
  });

  it('14 delete while uploads and row writes are in flight: no object, blob, row or usage is left for the deleted user', async () => {
    const objectCount = async () => Number((await queryDatabase(server.databaseUrl, `select count(*) as n from objects where app_id = '${app.app_id}'`))[0]!.n);
    const hana = await person(server, app);
    const table = await makeTable(server, asSecret(app), [{ name: 'n', type: 'int' }]);
    const bucket = await createBucket(server, app);
    const tableCost = await tableStorage(server, asSecret(app));
    const caller = { bearer: hana.token, publishableKey: app.publishable_key };
    await insertRow(server, caller, table.table_id, { n: 0 });
    // Two uploads hold their reservation with half their body sent when the deletion runs.
    const held = [heldUpload(server, app, bucket.bucket_id, 'held-1', hana.userId), heldUpload(server, app, bucket.bucket_id, 'held-2', hana.userId)];
    await Promise.all(held.map((h) => h.sent));
    await waitForUploads(server, hana.userId, 2);
    const writes = Array.from({ length: 16 }, (_, i) =>
      i % 2 === 0
        ? call(server, caller, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { n: i } })
        : putObject(server, app, bucket.bucket_id, `k${i}`, random(2000), { query: `?user_id=${hana.userId}` }),
    );
    const deletion = del(server, app, hana.userId);
    const results = await Promise.all(writes);
    const deleted = await deletion;
    for (const h of held) h.finish();
    expect(deleted.status, `${JSON.stringify(deleted.body)}\n${(await server.logs()).split('\n').filter((l) => /"level":(40|50)/.test(l)).slice(-5).join('\n')}`).toBe(200);
    const heldStatuses = await Promise.all(held.map((h) => h.done));
    expect(heldStatuses).toEqual([404, 404]);
    for (const r of results) expect([200, 201, 401, 404]).toContain(r.status);

    expect(await rowsNaming(server, hana.userId)).toEqual({});
    const [usage] = await queryDatabase(server.databaseUrl, `select used_bytes from object_storage_usage where app_id = '${app.app_id}'`);
    const [objectBytes] = await queryDatabase(server.databaseUrl, `select coalesce(sum(size_bytes), 0) as n from objects where app_id = '${app.app_id}'`);
    expect(Number(usage!.used_bytes)).toBe(Number(objectBytes!.n));
    const [b] = await queryDatabase(server.databaseUrl, `select used_bytes, object_count from buckets where id = '${bucket.bucket_id}'`);
    expect([Number(b!.used_bytes), Number(b!.object_count)]).toEqual([0, 0]);
    const [tables] = await queryDatabase(server.databaseUrl, `select used_bytes from custom_table_usage where app_id = '${app.app_id}'`);
    const [rows] = await queryDatabase(server.databaseUrl, `select coalesce(sum(size_bytes), 0) as n from t_${table.table_id.replace(/-/g, '')}`);
    // What is left counted is the tables' own cost (docs/tables.md), none of the deleted user's rows.
    expect([Number(tables!.used_bytes), Number(rows!.n)]).toEqual([tableCost.used_bytes, 0]);
    // No blob outlives its object: the file store holds exactly the app's objects' blobs.
    expect(blobFiles(server, app.app_id)).toBe(await objectCount());
    expect(await queryDatabase(server.databaseUrl, `select blob_id from blob_deletions where app_id = '${app.app_id}'`)).toEqual([]);
  });
});

describe.skipIf(TEST_DB !== 'postgres' || !process.env.TEST_REDIS_URL)('14 a deletion on one node, seen by another', () => {
  let a: TestServer;
  let b: TestServer;
  let app: TestApp;
  const shared = { PUBLIC_BASE_URL: 'https://auth.example.test' };

  beforeAll(async () => {
    a = await startServer(shared);
    b = await startServer({ ...shared, DATABASE_URL: a.databaseUrl, MASTER_KEY: a.env.MASTER_KEY });
    app = await createApp(a);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('14 delete: a deleted user’s access token is refused by the second node at once', async () => {
    const ivy = await person(a, app);
    expect((await me(b, app, ivy.token)).status).toBe(200);
    expect((await del(a, app, ivy.userId)).status).toBe(200);
    expect((await me(b, app, ivy.token)).status).toBe(401);
    expect((await call(b, { bearer: ivy.token, publishableKey: app.publishable_key }, 'GET', '/v1/tables')).status).toBe(401);
  });
});

/** Blob files the file store holds for the app (SQLite and PostgreSQL runs use BLOB_STORE's default, files). */
function blobFiles(server: TestServer, appId: string): number {
  const dir = `${server.dir}/data/blobs/${appId}`;
  return existsSync(dir) ? readdirSync(dir).length : 0;
}

/** A PUT whose first half is sent at once and the rest only on `finish()`: an upload in flight, for as long as the test wants. */
function heldUpload(server: TestServer, app: TestApp, bucketId: string, key: string, userId: string) {
  const body = randomBytes(256 * 1024);
  let finish = () => {};
  let started = () => {};
  const startedPromise = new Promise<void>((r) => (started = r));
  const done = new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: server.port, method: 'PUT', path: objectPath(bucketId, key, `?user_id=${userId}`), headers: { authorization: `Bearer ${app.secret_key}`, 'content-type': 'application/octet-stream', 'content-length': String(body.length) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.write(body.subarray(0, body.length / 2), () => setTimeout(started, 0));
    finish = () => req.end(body.subarray(body.length / 2));
  });
  return { done, sent: startedPromise, finish: () => finish() };
}

/** Polls (bounded) until the server holds `count` uploads of the user in flight. */
async function waitForUploads(server: TestServer, userId: string, count: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [row] = await queryDatabase(server.databaseUrl, `select count(*) as n from object_uploads where owner = '${userId}'`);
    if (Number(row!.n) >= count) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the upload never started');
}
