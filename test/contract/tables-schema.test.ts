import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type TestApp } from '../helpers/fixtures.js';
import { sharedServer, type TestServer } from '../helpers/server.js';
import { asSecret, call, insertRow, makeTable, sessionUser, tableName, type Caller } from '../helpers/tables.js';

// docs/tables.md: tables and columns, their auth, names and limits.

let server: TestServer;
let app: TestApp;
let other: TestApp;
let secret: Caller;
let user: Caller;

beforeAll(async () => {
  server = await sharedServer();
  app = await createApp(server, { name: 'Shop' });
  other = await createApp(server, { tenantId: app.tenant_id, name: 'Blog' });
  secret = asSecret(app);
  user = await sessionUser(server, app);
});
afterAll(async () => {
  await server?.stop();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('10 tables: create, list, read, delete', () => {
  it('201 with the table record; its columns carry ids, types, required, defaults and positions', async () => {
    const name = tableName('orders');
    const res = await call(server, secret, 'POST', '/v1/tables', {
      name,
      columns: [{ name: 'title', type: 'text', required: true }, { name: 'qty', type: 'int', default_value: 1 }, { name: 'meta', type: 'json' }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      table_id: expect.stringMatching(UUID),
      name,
      columns: [
        { column_id: expect.stringMatching(UUID), name: 'title', type: 'text', required: true, default_value: null, position: 0 },
        { column_id: expect.stringMatching(UUID), name: 'qty', type: 'int', required: false, default_value: 1, position: 1 },
        { column_id: expect.stringMatching(UUID), name: 'meta', type: 'json', required: false, default_value: null, position: 2 },
      ],
      created_at: expect.stringMatching(/Z$/),
      updated_at: res.body.created_at,
    });
    const read = await call(server, user, 'GET', `/v1/tables/${res.body.table_id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    const list = await call(server, user, 'GET', '/v1/tables');
    expect(list.status).toBe(200);
    expect(list.body.tables.map((t: { name: string }) => t.name)).toContain(name);
  });

  it('a session user may create and list tables (Secret or Publishable + Session)', async () => {
    const res = await call(server, user, 'POST', '/v1/tables', { name: tableName('notes') });
    expect(res.status).toBe(201);
    expect(res.body.columns).toEqual([]);
  });

  it('409 for a duplicate table name, 409 for a column named twice', async () => {
    const name = tableName('dup');
    await makeTable(server, secret, [], name);
    expect((await call(server, secret, 'POST', '/v1/tables', { name })).status).toBe(409);
    const twice = await call(server, secret, 'POST', '/v1/tables', { name: tableName(), columns: [{ name: 'a', type: 'int' }, { name: 'a', type: 'text' }] });
    expect(twice.status).toBe(409);
  });

  it('400 for names outside ^[a-z][a-z0-9_]{0,62}$, unknown types, bad defaults and unknown fields; nothing is created', async () => {
    const before = (await call(server, secret, 'GET', '/v1/tables')).body.tables.length;
    for (const name of ['Upper', '1abc', '_x', 'a-b', 'a b', '', 'a'.repeat(64), 'é', "x'; drop table users; --"]) {
      const res = await call(server, secret, 'POST', '/v1/tables', { name });
      expect(res.status, name).toBe(400);
      expect(res.body.detail).toEqual(expect.any(String));
      const col = await call(server, secret, 'POST', '/v1/tables', { name: tableName(), columns: [{ name, type: 'int' }] });
      expect(col.status, name).toBe(400);
    }
    expect((await call(server, secret, 'POST', '/v1/tables', { name: 'a'.repeat(63) })).status).toBe(201);
    for (const columns of [[{ name: 'a', type: 'blob' }], [{ name: 'a', type: 'int', default_value: 'x' }], [{ name: 'a' }], 'nope', [{ name: 'created_at', type: 'date' }]]) {
      const res = await call(server, secret, 'POST', '/v1/tables', { name: tableName(), columns });
      expect(res.status, JSON.stringify(columns)).toBe(400);
    }
    expect((await call(server, secret, 'POST', '/v1/tables', { name: tableName(), columns: Array.from({ length: 101 }, (_, i) => ({ name: `c${i}`, type: 'int' })) })).status).toBe(400);
    expect((await call(server, secret, 'GET', '/v1/tables')).body.tables.length).toBe(before + 1);
  });

  it('DELETE is Secret only (a session gets 403); 200 {status: deleted}; then 404', async () => {
    const table = await makeTable(server, secret, [{ name: 'n', type: 'int' }]);
    await insertRow(server, secret, table.table_id, { n: 1 });
    expect((await call(server, user, 'DELETE', `/v1/tables/${table.table_id}`)).status).toBe(403);
    const res = await call(server, secret, 'DELETE', `/v1/tables/${table.table_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'deleted' });
    expect((await call(server, secret, 'GET', `/v1/tables/${table.table_id}`)).status).toBe(404);
    expect((await call(server, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { n: 1 } })).status).toBe(404);
  });

  it("another app's table id is 404 on every route, never 403; no credentials is 401", async () => {
    const table = await makeTable(server, secret, [{ name: 'n', type: 'int' }]);
    const row = await insertRow(server, secret, table.table_id, { n: 1 });
    const stranger = asSecret(other);
    const strangerUser = await sessionUser(server, other);
    const col = table.columns[0]!.column_id;
    for (const caller of [stranger, strangerUser]) {
      expect((await call(server, caller, 'GET', `/v1/tables/${table.table_id}`)).status).toBe(404);
      expect((await call(server, caller, 'GET', `/v1/tables/${table.table_id}/rows/${row.row_id}`)).status).toBe(404);
      expect((await call(server, caller, 'PATCH', `/v1/tables/${table.table_id}/rows/${row.row_id}`, { data: { n: 2 } })).status).toBe(404);
      expect((await call(server, caller, 'DELETE', `/v1/tables/${table.table_id}/rows/${row.row_id}`)).status).toBe(404);
      expect((await call(server, caller, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { n: 2 } })).status).toBe(404);
      expect((await call(server, caller, 'POST', `/v1/tables/${table.table_id}/rows/query`, {})).status).toBe(404);
      expect((await call(server, caller, 'GET', '/v1/tables')).body.tables.map((t: { table_id: string }) => t.table_id)).not.toContain(table.table_id);
    }
    expect((await call(server, stranger, 'DELETE', `/v1/tables/${table.table_id}`)).status).toBe(404);
    expect((await call(server, stranger, 'POST', `/v1/tables/${table.table_id}/columns`, { name: 'x', type: 'int' })).status).toBe(404);
    expect((await call(server, stranger, 'PATCH', `/v1/tables/${table.table_id}/columns/${col}`, { name: 'm' })).status).toBe(404);
    expect((await call(server, stranger, 'DELETE', `/v1/tables/${table.table_id}/columns/${col}`)).status).toBe(404);
    expect((await call(server, secret, 'GET', `/v1/tables/${table.table_id}/rows/${row.row_id}`)).body.data).toEqual({ n: 1 });
    expect((await call(server, { bearer: 'sk_nope' }, 'GET', '/v1/tables')).status).toBe(401);
    expect((await call(server, { bearer: '', publishableKey: app.publishable_key }, 'GET', '/v1/tables')).status).toBe(401);
  });

  it('GET /v1/tables/storage: a new app has 0 of the default 100 MiB; Secret or Publishable + Session', async () => {
    const fresh = await createApp(server, { tenantId: app.tenant_id });
    const expected = { used_bytes: 0, limit_bytes: 100 * 1024 * 1024, used_percent: 0 };
    expect(await call(server, asSecret(fresh), 'GET', '/v1/tables/storage')).toMatchObject({ status: 200, body: expected });
    expect(await call(server, await sessionUser(server, fresh), 'GET', '/v1/tables/storage')).toMatchObject({ status: 200, body: expected });
    expect((await call(server, { bearer: '', publishableKey: fresh.publishable_key }, 'GET', '/v1/tables/storage')).status).toBe(401);
  });

  it('400 for a malformed table id', async () => {
    expect((await call(server, secret, 'GET', '/v1/tables/not-a-uuid')).status).toBe(400);
  });
});

describe('10 columns: add, PATCH, delete (Secret)', () => {
  it('a session user gets 403 on every column change', async () => {
    const table = await makeTable(server, secret, [{ name: 'n', type: 'int' }]);
    const col = table.columns[0]!.column_id;
    expect((await call(server, user, 'POST', `/v1/tables/${table.table_id}/columns`, { name: 'x', type: 'int' })).status).toBe(403);
    expect((await call(server, user, 'PATCH', `/v1/tables/${table.table_id}/columns/${col}`, { name: 'm' })).status).toBe(403);
    expect((await call(server, user, 'DELETE', `/v1/tables/${table.table_id}/columns/${col}`)).status).toBe(403);
  });

  it('lifecycle with rows present: add with default fills rows, rename keeps values, type change refused, delete drops values', async () => {
    const table = await makeTable(server, secret, [{ name: 'title', type: 'text' }]);
    const t = table.table_id;
    const row = await insertRow(server, secret, t, { title: 'a' });
    // A required column without default on a table with rows: 409.
    expect((await call(server, secret, 'POST', `/v1/tables/${t}/columns`, { name: 'qty', type: 'int', required: true })).status).toBe(409);
    const added = await call(server, secret, 'POST', `/v1/tables/${t}/columns`, { name: 'qty', type: 'int', required: true, default_value: 5 });
    expect(added.status).toBe(201);
    const qty = added.body.columns.find((c: { name: string }) => c.name === 'qty');
    expect(qty).toMatchObject({ type: 'int', required: true, default_value: 5, position: 1 });
    expect((await call(server, secret, 'GET', `/v1/tables/${t}/rows/${row.row_id}`)).body.data).toEqual({ title: 'a', qty: 5 });
    expect((await call(server, secret, 'POST', `/v1/tables/${t}/columns`, { name: 'qty', type: 'int' })).status).toBe(409);

    const renamed = await call(server, secret, 'PATCH', `/v1/tables/${t}/columns/${qty.column_id}`, { name: 'quantity', position: 7, default_value: 9, required: false });
    expect(renamed.status).toBe(200);
    expect(renamed.body.columns.find((c: { column_id: string }) => c.column_id === qty.column_id)).toMatchObject({ name: 'quantity', position: 7, default_value: 9, required: false });
    expect((await call(server, secret, 'GET', `/v1/tables/${t}/rows/${row.row_id}`)).body.data).toEqual({ title: 'a', quantity: 5 });
    const titleId = table.columns[0]!.column_id;
    expect((await call(server, secret, 'PATCH', `/v1/tables/${t}/columns/${titleId}`, { name: 'quantity' })).status).toBe(409);
    expect((await call(server, secret, 'PATCH', `/v1/tables/${t}/columns/${qty.column_id}`, { type: 'text' })).status).toBe(400);
    expect((await call(server, secret, 'PATCH', `/v1/tables/${t}/columns/${qty.column_id}`, { default_value: 'x' })).status).toBe(400);

    const gone = await call(server, secret, 'DELETE', `/v1/tables/${t}/columns/${qty.column_id}`);
    expect(gone).toMatchObject({ status: 200, body: { status: 'deleted' } });
    expect((await call(server, secret, 'GET', `/v1/tables/${t}/rows/${row.row_id}`)).body.data).toEqual({ title: 'a' });
    expect((await call(server, secret, 'POST', `/v1/tables/${t}/rows`, { data: { quantity: 1 } })).status).toBe(400);
    expect((await call(server, secret, 'DELETE', `/v1/tables/${t}/columns/${qty.column_id}`)).status).toBe(404);
  });

  it('the type changes while the table is empty; required on a column with empty rows needs a default', async () => {
    const table = await makeTable(server, secret, [{ name: 'v', type: 'int' }, { name: 'w', type: 'text' }]);
    const [v, w] = table.columns;
    const changed = await call(server, secret, 'PATCH', `/v1/tables/${table.table_id}/columns/${v!.column_id}`, { type: 'date' });
    expect(changed.status).toBe(200);
    const row = await insertRow(server, secret, table.table_id, { v: '2026-01-02' });
    expect(row.data).toEqual({ v: '2026-01-02T00:00:00.000Z' });
    expect((await call(server, secret, 'PATCH', `/v1/tables/${table.table_id}/columns/${w!.column_id}`, { required: true })).status).toBe(409);
    const req = await call(server, secret, 'PATCH', `/v1/tables/${table.table_id}/columns/${w!.column_id}`, { required: true, default_value: 'none' });
    expect(req.status).toBe(200);
    expect((await call(server, secret, 'GET', `/v1/tables/${table.table_id}/rows/${row.row_id}`)).body.data).toEqual({ v: '2026-01-02T00:00:00.000Z', w: 'none' });
    expect((await call(server, secret, 'PATCH', `/v1/tables/${table.table_id}/columns/${w!.column_id}`, {})).status).toBe(400);
  });

  it('at most 100 columns per table: the 101st is 409', async () => {
    const table = await makeTable(server, secret, Array.from({ length: 99 }, (_, i) => ({ name: `c${i}`, type: 'int' })));
    expect((await call(server, secret, 'POST', `/v1/tables/${table.table_id}/columns`, { name: 'last', type: 'bool' })).status).toBe(201);
    const res = await call(server, secret, 'POST', `/v1/tables/${table.table_id}/columns`, { name: 'extra', type: 'bool' });
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/100 columns/);
  });
});
