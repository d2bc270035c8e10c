import { randomBytes, randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execDatabase, queryDatabase, TEST_DB } from '../helpers/db.js';
import type { JsonResponse, TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { asSecret, call, createApp, insertRow, makeTable, rowBytes, sessionUser, storage, tableBytes, type Caller } from '../helpers/tables.js';

// Issue 35.3, docs/tables.md: used_bytes counts what rows cost the database, so that the
// database's growth from row writes stays within 2x of used_bytes whatever the table's shape; and a
// session user's row writes are limited to 300 per 60 s (row_write_user).

let server: TestServer;
let app: TestApp;
let secret: Caller;

beforeAll(async () => {
  // The default 300 writes per user, in a window of an hour rather than 60 s: a loaded machine can take
  // more than a minute for 300 writes, and the first would leave the window before the 301st. The secret
  // key's writes below are not limited.
  server = await startServer({ RATE_LIMITS: 'row_write_user=300/3600', TABLES_STORAGE_LIMIT_BYTES: String(1024 ** 3) });
  app = await createApp(server);
  secret = asSecret(app);
});
afterAll(async () => {
  await server?.stop();
});

/**
 * Folds SQLite's WAL into the file (the server keeps it open; a checkpoint is retried while busy). SQLite
 * answers busy at once, without waiting out busy_timeout, while another connection checkpoints: the
 * server's checkpoint thread does every 200 ms, and on a loaded machine it can hold the checkpoint for
 * seconds (its TRUNCATE waits for the writer, then copies and syncs). So tries are spaced, up to 60 s.
 */
async function checkpointSqlite(file: string): Promise<void> {
  const { default: SQLite } = await import('better-sqlite3');
  const db = new SQLite(file);
  try {
    db.pragma('busy_timeout = 15000');
    const deadline = Date.now() + 60_000;
    do {
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (result!.busy === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    } while (Date.now() < deadline);
    throw new Error('the WAL checkpoint stayed busy');
  } finally {
    db.close();
  }
}

/** What the database holds on disk: SQLite's file after a checkpoint; on PostgreSQL the table with its indexes and TOAST. */
async function diskBytes(tableId: string): Promise<number> {
  if (TEST_DB === 'sqlite') {
    const file = server.databaseUrl.slice('sqlite:'.length);
    await checkpointSqlite(file);
    return statSync(file).size;
  }
  const rows = await queryDatabase(server.databaseUrl, `select coalesce(pg_total_relation_size(to_regclass('t_${tableId.replace(/-/g, '')}')), 0) as n`);
  return Number(rows[0]!.n);
}

async function writeRows(caller: Caller, tableId: string, count: number, data: () => Record<string, unknown>): Promise<void> {
  // One at a time on PostgreSQL: inserters waiting on the relation's extension lock make it extend by
  // 20 pages per waiter (free space for later rows, not what these rows cost), which on a loaded machine
  // inflated the growth of a 150-row table by half.
  const parallel = TEST_DB === 'postgres' ? 1 : 16;
  for (let i = 0; i < count; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - i) }, () => call(server, caller, 'POST', `/v1/tables/${tableId}/rows`, { data: data() }));
    for (const res of await Promise.all(batch)) expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
}

/** Random (incompressible) ASCII text of `bytes` bytes. */
const text = (bytes: number) => randomBytes(bytes).toString('base64').slice(0, bytes);

/**
 * Makes a table in a fresh app and writes `count` rows of one shape into it: the database's growth (from
 * before the table was made) over the app's used_bytes.
 */
async function growthOverUsed(shape: string, columns: unknown[], count: number, data: () => Record<string, unknown>): Promise<number> {
  const usedBefore = (await storage(server, secret)).used_bytes;
  const before = TEST_DB === 'sqlite' ? await diskBytes(randomUUID()) : 0;
  const table = await makeTable(server, secret, columns);
  await writeRows(secret, table.table_id, count, data);
  const growth = (await diskBytes(table.table_id)) - before;
  const used = (await storage(server, secret)).used_bytes - usedBefore;
  console.log(`${TEST_DB} ${shape}: ${count} rows, database growth ${growth} bytes, used_bytes ${used}, ratio ${(growth / used).toFixed(2)}`);
  return growth / used;
}

describe('10 storage: used_bytes bounds what the rows cost on disk', () => {
  // "Within 2x": the growth is at most twice used_bytes, and used_bytes at most twice the growth.
  const within2x = (ratio: number, shape: string) => {
    expect(ratio, `${shape}: database growth / used_bytes`).toBeLessThanOrEqual(2);
    expect(ratio, `${shape}: database growth / used_bytes`).toBeGreaterThanOrEqual(0.5);
  };

  it('35.3 a wide table of nulls: 100 indexed columns, empty rows', async () => {
    const columns = Array.from({ length: 100 }, (_, i) => ({ name: `c${i}`, type: i % 2 ? 'int' : 'text' }));
    within2x(await growthOverUsed('wide, empty rows', columns, 200, () => ({})), 'wide, empty rows');
  }, 120_000);

  it('35.3 a narrow table of long values: text of 2,048 and of 1,000 bytes', async () => {
    within2x(await growthOverUsed('text of 2,048 bytes', [{ name: 's', type: 'text' }], 200, () => ({ s: text(2048) })), 'text of 2,048 bytes');
    // Just past SQLite's in-page limit for an index entry: each spills into an overflow page of its own.
    within2x(await growthOverUsed('text of 1,000 bytes', [{ name: 's', type: 'text' }], 150, () => ({ s: text(1000) })), 'text of 1,000 bytes');
  }, 120_000);

  it('35.3 many small rows', async () => {
    let n = 0;
    within2x(await growthOverUsed('small rows', [{ name: 'n', type: 'int' }], 600, () => ({ n: n++ })), 'small rows');
  }, 120_000);

  it('35.3 adding an indexed column to a table with rows counts its index entries; deleting it gives them back', async () => {
    const table = await makeTable(server, secret, [{ name: 'n', type: 'int' }]);
    await insertRow(server, secret, table.table_id, { n: 1 });
    await insertRow(server, secret, table.table_id, { n: 2 });
    const before = (await storage(server, secret)).used_bytes;
    const added = await call(server, secret, 'POST', `/v1/tables/${table.table_id}/columns`, { name: 'label', type: 'text' });
    expect(added.status).toBe(201);
    const grown = (await storage(server, secret)).used_bytes;
    expect(grown).toBeGreaterThan(before);
    const label = added.body.columns.find((c: { name: string }) => c.name === 'label').column_id;
    expect((await call(server, secret, 'DELETE', `/v1/tables/${table.table_id}/columns/${label}`)).status).toBe(200);
    expect((await storage(server, secret)).used_bytes).toBe(before);
  });
});

describe('10 storage: upgrading recounts what was written before', () => {
  it('35.3 migration 0017 recounts rows and tables counted by their JSON alone', async () => {
    const fresh = asSecret(await createApp(server));
    const cols = [{ name: 's', type: 'text' }, { name: 'n', type: 'int' }, { name: 'j', type: 'json' }];
    const table = await makeTable(server, fresh, cols);
    const data = { s: 'héllo', n: 42, j: { a: [1] } };
    for (let i = 0; i < 3; i++) await insertRow(server, fresh, table.table_id, data);
    const counted = (await storage(server, fresh)).used_bytes;
    expect(counted).toBe(tableBytes(cols) + 3 * rowBytes(cols, data));
    // As the release before left it: each row's size its data's JSON, the app's figure their sum, 0017 not applied.
    const json = Buffer.byteLength(JSON.stringify(data));
    await execDatabase(server.databaseUrl, `update t_${table.table_id.replace(/-/g, '')} set size_bytes = ${json}`);
    await execDatabase(server.databaseUrl, `update custom_table_usage set used_bytes = ${3 * json} where app_id = (select app_id from custom_tables where id = '${table.table_id}')`);
    await execDatabase(server.databaseUrl, `delete from kysely_migration where name = '0017-custom-row-cost'`);
    expect((await storage(server, fresh)).used_bytes).toBe(3 * json);
    const migrated = await server.cli(['migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect((await storage(server, fresh)).used_bytes).toBe(counted);
    // Rows written before and after agree: deleting one frees exactly what it counts now.
    const [first] = (await call(server, fresh, 'POST', `/v1/tables/${table.table_id}/rows/query`, { limit: 1 })).body.rows;
    expect((await call(server, fresh, 'DELETE', `/v1/tables/${table.table_id}/rows/${first.row_id}`)).status).toBe(200);
    expect((await storage(server, fresh)).used_bytes).toBe(counted - rowBytes(cols, data));
  }, 120_000);
});

describe('10 limits: row writes by a session user (row_write_user, 300 per window)', () => {
  it('35.3 the 301st row write of a user within the window is 429 with Retry-After; other users and the secret key still write', async () => {
    const user = await sessionUser(server, app);
    const table = await makeTable(server, secret, [{ name: 'n', type: 'int' }]);
    const path = `/v1/tables/${table.table_id}/rows`;
    // Creates, PATCHes and deletes all count: 100 rows written, PATCHed and deleted are 300 writes. In
    // batches of 20 (a busy machine must not push the Redis script past its timeout, where a node counts alone).
    const inBatches = async (requests: (() => Promise<JsonResponse>)[]) => {
      const out: JsonResponse[] = [];
      for (let i = 0; i < requests.length; i += 20) out.push(...(await Promise.all(requests.slice(i, i + 20).map((r) => r()))));
      return out;
    };
    const created = await inBatches(Array.from({ length: 100 }, (_, i) => () => call(server, user, 'POST', path, { data: { n: i } })));
    expect(created.map((r) => r.status)).toEqual(Array(100).fill(201));
    const patched = await inBatches(created.map((r) => () => call(server, user, 'PATCH', `${path}/${r.body.row_id}`, { data: { n: -1 } })));
    expect(patched.map((r) => r.status)).toEqual(Array(100).fill(200));
    const deleted = await inBatches(created.slice(0, 90).map((r) => () => call(server, user, 'DELETE', `${path}/${r.body.row_id}`)));
    expect(deleted.map((r) => r.status)).toEqual(Array(90).fill(200));
    // The last 10 allowed writes race with 10 more: exactly 10 get through.
    const racing = await Promise.all([
      ...created.slice(90).map((r) => call(server, user, 'DELETE', `${path}/${r.body.row_id}`)),
      ...Array.from({ length: 10 }, () => call(server, user, 'POST', path, { data: { n: 0 } })),
    ]);
    const limited = racing.filter((r) => r.status === 429);
    expect(limited).toHaveLength(10);
    expect(racing.filter((r) => r.status !== 429).every((r) => r.status === 200 || r.status === 201)).toBe(true);
    // Refused writes wrote nothing: what is left is the rows whose delete was refused and the inserts that won.
    const left = await call(server, secret, 'POST', `${path}/query`, { limit: 200 });
    const refusedDeletes = racing.slice(0, 10).filter((r) => r.status === 429).length;
    expect(left.body.rows.length).toBe(refusedDeletes + racing.filter((r) => r.status === 201).length);
    const refused = await call(server, user, 'POST', path, { data: { n: 1 } });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/too many requests/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);

    const other = await sessionUser(server, app);
    expect((await call(server, other, 'POST', path, { data: { n: 2 } })).status).toBe(201);
    expect((await call(server, secret, 'POST', path, { data: { n: 3 } })).status).toBe(201);

    if (process.env.TEST_REDIS_URL) {
      // The window's Redis key names the app and the user id, never an email.
      const redis = new Redis(process.env.TEST_REDIS_URL);
      try {
        const keys = await redis.keys(`gh:rl:row_write_user:${app.app_id}:*`);
        expect(keys.sort()).toEqual([`gh:rl:row_write_user:${app.app_id}:${other.userId}`, `gh:rl:row_write_user:${app.app_id}:${user.userId}`].sort());
      } finally {
        redis.disconnect();
      }
    }
  }, 120_000);
});
