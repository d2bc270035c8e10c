import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execDatabase } from '../helpers/db.js';
import { createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { asSecret, call, insertRow, makeTable, query, sessionUser, type Caller } from '../helpers/tables.js';

// docs/tables.md on two nodes sharing one database (one SQLite file, or one PostgreSQL database).
// A node keeps a table's metadata in memory once it has used the table; a change made through the other
// node must still take effect at once on the next query and the next write there, and the copy must never
// let another app reach the table.

let a: TestServer;
let b: TestServer;
let app: TestApp;
let other: TestApp;
let secret: Caller;

beforeAll(async () => {
  // One issuer and one master key: the nodes of one deployment (a session from either is valid on both).
  const shared = { PUBLIC_BASE_URL: 'https://auth.example.test', MASTER_KEY: randomBytes(32).toString('base64') };
  a = await startServer(shared);
  b = await startServer({ ...shared, DATABASE_URL: a.databaseUrl });
  app = await createApp(a, { name: 'Shop' });
  other = await createApp(a, { tenantId: app.tenant_id, name: 'Blog' });
  secret = asSecret(app);
}, 120_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

/** A table with two rows, queried once on node b so that b holds its metadata. */
async function cachedOnB(columns: unknown[], rows: Record<string, unknown>[]) {
  const table = await makeTable(a, secret, columns);
  for (const data of rows) await insertRow(a, secret, table.table_id, data);
  const first = await query(b, secret, table.table_id, {});
  expect(first.status).toBe(200);
  expect(first.body.rows).toHaveLength(rows.length);
  return table;
}

const column = (table: { columns: { column_id: string; name: string }[] }, name: string) => table.columns.find((c) => c.name === name)!.column_id;
const data = (res: { body: { rows: { data: Record<string, unknown> }[] } }) => res.body.rows.map((r) => r.data);

describe('10 tables on two nodes: a schema change through one node is seen at once by the other', () => {
  it('a rename: the next query on the other node filters and answers by the new name; the old one is 400', async () => {
    const table = await cachedOnB([{ name: 'title', type: 'text' }, { name: 'score', type: 'int' }], [{ title: 'a', score: 1 }, { title: 'b', score: 2 }]);
    const renamed = await call(a, secret, 'PATCH', `/v1/tables/${table.table_id}/columns/${column(table, 'score')}`, { name: 'points' });
    expect(renamed.status).toBe(200);
    expect(data(await query(b, secret, table.table_id, {}))).toEqual([{ title: 'a', points: 1 }, { title: 'b', points: 2 }]);
    const res = await query(b, secret, table.table_id, { filter: { field: 'points', op: 'gte', value: 2 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(data(res)).toEqual([{ title: 'b', points: 2 }]);
    const old = await query(b, secret, table.table_id, { filter: { field: 'score', op: 'gte', value: 2 } });
    expect(old.status).toBe(400);
    expect(old.body.detail).toMatch(/score/);
  });

  it('an added column (with a default): the next query on the other node returns it, the next write there takes it', async () => {
    const table = await cachedOnB([{ name: 'title', type: 'text' }], [{ title: 'a' }]);
    const added = await call(a, secret, 'POST', `/v1/tables/${table.table_id}/columns`, { name: 'tag', type: 'text', default_value: 'new' });
    expect(added.status).toBe(201);
    expect(data(await query(b, secret, table.table_id, {}))).toEqual([{ title: 'a', tag: 'new' }]);
    const written = await call(b, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { title: 'b', tag: 'mine' } });
    expect(written.status, JSON.stringify(written.body)).toBe(201);
    const sorted = await query(b, secret, table.table_id, { sort: { field: 'tag', dir: 'asc' } });
    expect(data(sorted)).toEqual([{ title: 'b', tag: 'mine' }, { title: 'a', tag: 'new' }]);
  });

  it('a deleted column: the other node stops returning it; a filter or a write naming it is 400', async () => {
    const table = await cachedOnB([{ name: 'title', type: 'text' }, { name: 'secret_note', type: 'text' }], [{ title: 'a', secret_note: 'x' }]);
    const deleted = await call(a, secret, 'DELETE', `/v1/tables/${table.table_id}/columns/${column(table, 'secret_note')}`);
    expect(deleted.status).toBe(200);
    expect(data(await query(b, secret, table.table_id, {}))).toEqual([{ title: 'a' }]);
    expect((await query(b, secret, table.table_id, { filter: { field: 'secret_note', op: 'is_null', value: false } })).status).toBe(400);
    expect((await call(b, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { title: 'b', secret_note: 'y' } })).status).toBe(400);
  });

  it('a retyped column (empty table): the other node filters and decodes by the new type', async () => {
    const table = await cachedOnB([{ name: 'n', type: 'text' }], []);
    const retyped = await call(a, secret, 'PATCH', `/v1/tables/${table.table_id}/columns/${column(table, 'n')}`, { type: 'int' });
    expect(retyped.status).toBe(200);
    await insertRow(a, secret, table.table_id, { n: 5 });
    expect(data(await query(b, secret, table.table_id, {}))).toEqual([{ n: 5 }]);
    const res = await query(b, secret, table.table_id, { filter: { field: 'n', op: 'gte', value: 1 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(data(res)).toEqual([{ n: 5 }]);
    expect((await query(b, secret, table.table_id, { filter: { field: 'n', op: 'eq', value: 'five' } })).status).toBe(400);
  });

  it('a column no longer required: the other node reads its nulls again (a null written since is not missed)', async () => {
    const columns = [{ name: 'title', type: 'text' }, { name: 'due', type: 'date', required: true }];
    const table = await cachedOnB(columns, [{ title: 'a', due: '2026-01-02' }, { title: 'b', due: '2026-01-01' }]);
    const optional = await call(a, secret, 'PATCH', `/v1/tables/${table.table_id}/columns/${column(table, 'due')}`, { required: false });
    expect(optional.status).toBe(200);
    await insertRow(a, secret, table.table_id, { title: 'c' });
    const res = await query(b, secret, table.table_id, { sort: { field: 'due', dir: 'desc' } });
    expect(data(res)).toEqual([{ title: 'c' }, { title: 'a', due: '2026-01-02T00:00:00.000Z' }, { title: 'b', due: '2026-01-01T00:00:00.000Z' }]);
  });

  it('a deleted table: the next query and write on the other node are 404', async () => {
    const table = await cachedOnB([{ name: 'title', type: 'text' }], [{ title: 'a' }]);
    expect((await call(a, secret, 'DELETE', `/v1/tables/${table.table_id}`)).status).toBe(200);
    expect((await query(b, secret, table.table_id, {})).status).toBe(404);
    expect((await call(b, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { title: 'b' } })).status).toBe(404);
  });

  it('changes through either node in turn: each node answers by the latest columns every time', async () => {
    const table = await cachedOnB([{ name: 'v0', type: 'int' }], [{ v0: 1 }]);
    const id = column(table, 'v0');
    for (let i = 1; i <= 6; i++) {
      const [changer, reader] = i % 2 ? [a, b] : [b, a];
      expect((await call(changer, secret, 'PATCH', `/v1/tables/${table.table_id}/columns/${id}`, { name: `v${i}` })).status).toBe(200);
      expect(data(await query(reader, secret, table.table_id, {}))).toEqual([{ [`v${i}`]: 1 }]);
      expect(data(await query(reader, secret, table.table_id, { filter: { field: `v${i}`, op: 'eq', value: 1 } }))).toEqual([{ [`v${i}`]: 1 }]);
      expect(data(await query(changer, secret, table.table_id, {}))).toEqual([{ [`v${i}`]: 1 }]);
    }
  });
});

describe('10 tables: a node that holds a table\'s metadata still answers 404 to another app', () => {
  it("another app's secret key or session gets 404 for the table, its rows and its queries, never data", async () => {
    const table = await cachedOnB([{ name: 'title', type: 'text' }], [{ title: 'private' }, { title: 'private too' }]);
    const page = await query(b, secret, table.table_id, { limit: 1 });
    const rowId = page.body.rows[0].row_id;
    expect(page.body.next_cursor).toEqual(expect.any(String));
    for (const intruder of [asSecret(other), await sessionUser(b, other)]) {
      for (const node of [b, a]) {
        const res = await query(node, intruder, table.table_id, {});
        expect(res.status, `${node === a ? 'a' : 'b'} ${intruder.publishableKey ? 'session' : 'secret'} ${JSON.stringify(res.body)}`).toBe(404);
        expect(JSON.stringify(res.body)).not.toContain('private');
        expect((await query(node, intruder, table.table_id, { limit: 1, cursor: page.body.next_cursor })).status).toBe(404);
        expect((await call(node, intruder, 'GET', `/v1/tables/${table.table_id}/rows/${rowId}`)).status).toBe(404);
        expect((await call(node, intruder, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { title: 'x' } })).status).toBe(404);
      }
    }
    // The owner's copy is untouched by the intruder's 404s.
    expect(data(await query(b, secret, table.table_id, {}))).toEqual([{ title: 'private' }, { title: 'private too' }]);
  });
});

// On PostgreSQL a node that has seen a secret key name an app skips the key lookup on a query and the
// page's own statement confirms the key instead (guards.presumed). Every refusal must stay as it was.
describe('10 a secret key a node has used before is still checked on every query', () => {
  const expireSecretKey = (appId: string, expiresAt: string | null) =>
    execDatabase(a.databaseUrl, `update api_keys set expires_at = ${expiresAt === null ? 'null' : `'${expiresAt}'`} where app_id = '${appId}' and kind = 'secret'`);
  const credit = async (tenantId: string, amount: string) => {
    const result = await a.cli(['billing', 'credit', '--tenant', tenantId, '--amount-usd', amount, '--note', 'test', '--json']);
    expect(result.code, result.stderr).toBe(0);
  };

  /** An app of its own tenant with a one-row table, queried on both nodes (each has seen the key). */
  async function usedOnBothNodes() {
    const own = await createApp(a, { name: 'Keys' });
    const key = asSecret(own);
    const table = await makeTable(a, key, [{ name: 'title', type: 'text' }]);
    await insertRow(a, key, table.table_id, { title: 'x' });
    for (const server of [a, b]) expect((await query(server, key, table.table_id, {})).status).toBe(200);
    return { own, key, table };
  }

  it('expired: 401 on both nodes, also for a bad filter or an unknown table; live again: the rows', async () => {
    const { own, key, table } = await usedOnBothNodes();
    await expireSecretKey(own.app_id, '2000-01-01T00:00:00.000Z');
    for (const server of [a, b]) {
      for (const [tableId, body] of [
        [table.table_id, {}],
        [table.table_id, { filter: { field: 'nope', op: 'eq', value: 1 } }],
        [randomUUID(), {}],
      ] as const) {
        const res = await query(server, key, tableId, body);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ detail: 'invalid secret key', code: 'unauthenticated' });
      }
    }
    await expireSecretKey(own.app_id, null);
    const back = await query(b, key, table.table_id, {});
    expect(back.status).toBe(200);
    expect(data(back)).toEqual([{ title: 'x' }]);
  });

  it('expired: 401 also for a cursor that reads nothing (into the nulls of a column required since)', async () => {
    const { own, key, table } = await usedOnBothNodes();
    const n = await call(a, key, 'POST', `/v1/tables/${table.table_id}/columns`, { name: 'n', type: 'int' });
    expect(n.status).toBe(201);
    for (const value of [1, null, null]) await insertRow(a, key, table.table_id, { title: 't', n: value });
    const sort = { field: 'n', dir: 'asc' };
    const first = await query(b, key, table.table_id, { sort, limit: 2 });
    const second = await query(b, key, table.table_id, { sort, limit: 2, cursor: first.body.next_cursor });
    expect(second.body.rows.map((r: { data: { n?: unknown } }) => r.data.n ?? null)).toEqual([null, null]);
    const third = await query(b, key, table.table_id, { sort, limit: 1, cursor: first.body.next_cursor });
    expect(third.body.next_cursor).toEqual(expect.any(String));
    const required = await call(a, key, 'PATCH', `/v1/tables/${table.table_id}/columns/${column(n.body, 'n')}`, { required: true, default_value: 0 });
    expect(required.status, JSON.stringify(required.body)).toBe(200);
    const live = await query(b, key, table.table_id, { sort, limit: 1, cursor: third.body.next_cursor });
    expect(live.status).toBe(200);
    await expireSecretKey(own.app_id, '2000-01-01T00:00:00.000Z');
    for (const server of [a, b]) {
      const res = await query(server, key, table.table_id, { sort, limit: 1, cursor: third.body.next_cursor });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'invalid secret key', code: 'unauthenticated' });
    }
  });

  it("a paused tenant: 402 on both nodes; after a credit, the rows; another app's table: 404 with the used key", async () => {
    const { own, key, table } = await usedOnBothNodes();
    await credit(own.tenant_id, '-1');
    for (const server of [a, b]) {
      const res = await query(server, key, table.table_id, {});
      expect(res.status).toBe(402);
      expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    }
    await credit(own.tenant_id, '1');
    for (const server of [a, b]) expect(data(await query(server, key, table.table_id, {}))).toEqual([{ title: 'x' }]);
    const theirs = await makeTable(a, secret, [{ name: 'title', type: 'text' }]);
    await insertRow(a, secret, theirs.table_id, { title: 'secret' });
    for (const server of [a, b]) {
      const res = await query(server, key, theirs.table_id, {});
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'table not found', code: 'not_found' });
    }
  });
});
