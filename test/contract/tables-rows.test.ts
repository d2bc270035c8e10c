import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type TestApp } from '../helpers/fixtures.js';
import { sharedServer, type TestServer } from '../helpers/server.js';
import { api } from '../helpers/fixtures.js';
import { asSecret, call, insertRow, makeTable, queryAll, sessionUser, tableName, type Caller } from '../helpers/tables.js';

// docs/tables.md: rows validated against the columns, PATCH merges, user scoping.

let server: TestServer;
let app: TestApp;
let secret: Caller;
let alice: Caller & { userId: string };
let bob: Caller & { userId: string };

beforeAll(async () => {
  server = await sharedServer();
  app = await createApp(server, { name: 'Shop' });
  secret = asSecret(app);
  alice = await sessionUser(server, app);
  bob = await sessionUser(server, app);
});
afterAll(async () => {
  await server?.stop();
});

const TYPES: Record<string, { ok: [unknown, unknown][]; bad: unknown[] }> = {
  int: { ok: [[0, 0], [-7, -7], [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]], bad: [1.5, '1', true, 2 ** 53, [], {}] },
  float: { ok: [[1.5, 1.5], [-0.25, -0.25], [3, 3], [1e300, 1e300]], bad: ['1.5', false, {}, []] },
  bool: { ok: [[true, true], [false, false]], bad: [0, 1, 'true', []] },
  text: { ok: [['', ''], ['héllo ✓', 'héllo ✓'], ["'; drop table x; --", "'; drop table x; --"]], bad: [1, true, {}, ['a'], 'x'.repeat(2049)] },
  date: {
    ok: [
      ['2026-11-21', '2026-11-21T00:00:00.000Z'],
      ['2026-11-21T10:00:00Z', '2026-11-21T10:00:00.000Z'],
      ['2026-11-21T12:30:00.5+02:00', '2026-11-21T10:30:00.500Z'],
      ['2024-02-29T23:59:59.999Z', '2024-02-29T23:59:59.999Z'],
    ],
    bad: ['2026-02-30', '2026-13-01', '21/11/2026', '2026-11-21T10:00:00', 1700000000, '', 'tomorrow', '2026-11-21T25:00:00Z'],
  },
  json: { ok: [[{ a: [1, { b: null }] }, { a: [1, { b: null }] }], [[1, 'x'], [1, 'x']], ['s', 's'], [0, 0], [false, false]], bad: [] },
};

describe('10 rows: each type accepts its values and refuses others with 400 naming the field', () => {
  for (const [type, { ok, bad }] of Object.entries(TYPES)) {
    it(type, async () => {
      const table = await makeTable(server, secret, [{ name: 'v', type }]);
      for (const [input, stored] of ok) {
        const row = await insertRow(server, secret, table.table_id, { v: input });
        expect(row.data, JSON.stringify(input)).toEqual({ v: stored });
        const read = await call(server, secret, 'GET', `/v1/tables/${table.table_id}/rows/${row.row_id}`);
        expect(read.body.data, JSON.stringify(input)).toEqual({ v: stored });
      }
      for (const input of bad) {
        const res = await call(server, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { v: input } });
        expect(res.status, JSON.stringify(input)).toBe(400);
        expect(res.body.detail).toMatch(/^v/);
      }
      expect(await queryAll(server, secret, table.table_id, {})).toHaveLength(ok.length);
    });
  }
});

describe('10 rows: create, read, PATCH, delete', () => {
  it('201 with the record; defaults filled; unknown field and missing required are 400 and nothing is written', async () => {
    const table = await makeTable(server, secret, [
      { name: 'title', type: 'text', required: true },
      { name: 'qty', type: 'int', default_value: 1 },
      { name: 'note', type: 'text' },
    ]);
    const t = table.table_id;
    const res = await call(server, secret, 'POST', `/v1/tables/${t}/rows`, { data: { title: 'pen' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      row_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      data: { title: 'pen', qty: 1 },
      user_id: null,
      organization_id: null,
      created_by: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: res.body.created_at,
    });
    expect((await call(server, secret, 'POST', `/v1/tables/${t}/rows`, { data: { title: 'x', colour: 'red' } })).body.detail).toMatch(/colour/);
    expect((await call(server, secret, 'POST', `/v1/tables/${t}/rows`, { data: { qty: 2 } })).body.detail).toMatch(/title/);
    expect((await call(server, secret, 'POST', `/v1/tables/${t}/rows`, { data: { title: null } })).status).toBe(400);
    for (const body of [{}, { data: 'x' }, { data: [1] }, { data: null }, { data: {}, user_id: 'nope' }]) {
      expect((await call(server, secret, 'POST', `/v1/tables/${t}/rows`, body)).status, JSON.stringify(body)).toBe(400);
    }
    const raw = await call(server, secret, 'POST', `/v1/tables/${t}/rows`, undefined);
    expect(raw.status).toBe(400);
    expect(await queryAll(server, secret, t, {})).toHaveLength(1);
  });

  it('PATCH merges: given fields replace, null clears a non-required field, a required one cannot be cleared', async () => {
    const table = await makeTable(server, secret, [
      { name: 'title', type: 'text', required: true },
      { name: 'qty', type: 'int' },
      { name: 'done', type: 'bool' },
    ]);
    const t = table.table_id;
    const row = await insertRow(server, secret, t, { title: 'a', qty: 2, done: false });
    const res = await call(server, secret, 'PATCH', `/v1/tables/${t}/rows/${row.row_id}`, { data: { qty: null, done: true } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ title: 'a', done: true });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(res.body.created_at));
    expect((await call(server, secret, 'PATCH', `/v1/tables/${t}/rows/${row.row_id}`, { data: { title: null } })).status).toBe(400);
    expect((await call(server, secret, 'PATCH', `/v1/tables/${t}/rows/${row.row_id}`, { data: { qty: 'x' } })).status).toBe(400);
    expect((await call(server, secret, 'PATCH', `/v1/tables/${t}/rows/${row.row_id}`, { data: { nope: 1 } })).status).toBe(400);
    expect((await call(server, secret, 'GET', `/v1/tables/${t}/rows/${row.row_id}`)).body.data).toEqual({ title: 'a', done: true });
    const del = await call(server, secret, 'DELETE', `/v1/tables/${t}/rows/${row.row_id}`);
    expect(del).toMatchObject({ status: 200, body: { status: 'deleted' } });
    expect((await call(server, secret, 'GET', `/v1/tables/${t}/rows/${row.row_id}`)).status).toBe(404);
    expect((await call(server, secret, 'DELETE', `/v1/tables/${t}/rows/${row.row_id}`)).status).toBe(404);
    expect((await call(server, secret, 'PATCH', `/v1/tables/${t}/rows/${row.row_id}`, { data: {} })).status).toBe(404);
  });
});

describe('10 rows: user scoping (Publishable + Session sees only its own rows; the secret key sees all)', () => {
  it('new rows of a session get its user_id; another user_id in the body is 403', async () => {
    const table = await makeTable(server, secret, [{ name: 'n', type: 'int' }]);
    const own = await insertRow(server, alice, table.table_id, { n: 1 });
    expect(own.user_id).toBe(alice.userId);
    expect((await insertRow(server, alice, table.table_id, { n: 2 }, { user_id: alice.userId })).user_id).toBe(alice.userId);
    const res = await call(server, alice, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { n: 3 }, user_id: bob.userId });
    expect(res.status).toBe(403);
    expect(await queryAll(server, secret, table.table_id, {})).toHaveLength(2);
  });

  it("another user's row is 404 on read, PATCH and DELETE, and absent from queries; the secret key reaches every row", async () => {
    const table = await makeTable(server, secret, [{ name: 'n', type: 'int' }]);
    const t = table.table_id;
    const a = await insertRow(server, alice, t, { n: 1 });
    const b = await insertRow(server, bob, t, { n: 2 });
    const s = await insertRow(server, secret, t, { n: 3 }, { user_id: bob.userId });
    const none = await insertRow(server, secret, t, { n: 4 });
    expect(s.user_id).toBe(bob.userId);
    expect(none.user_id).toBeNull();
    expect((await call(server, alice, 'GET', `/v1/tables/${t}/rows/${b.row_id}`)).status).toBe(404);
    expect((await call(server, alice, 'PATCH', `/v1/tables/${t}/rows/${b.row_id}`, { data: { n: 9 } })).status).toBe(404);
    expect((await call(server, alice, 'DELETE', `/v1/tables/${t}/rows/${b.row_id}`)).status).toBe(404);
    expect((await call(server, alice, 'GET', `/v1/tables/${t}/rows/${none.row_id}`)).status).toBe(404);
    expect((await queryAll(server, alice, t, {})).map((r) => r.row_id)).toEqual([a.row_id]);
    expect((await queryAll(server, bob, t, {})).map((r) => r.row_id).sort()).toEqual([b.row_id, s.row_id].sort());
    expect(await queryAll(server, secret, t, {})).toHaveLength(4);
    // user_id is a query field for the secret key only.
    expect((await queryAll(server, secret, t, { filter: { field: 'user_id', op: 'eq', value: bob.userId }, sort: { field: 'n', dir: 'asc' } })).map((r) => r.data.n)).toEqual([2, 3]);
    expect((await call(server, alice, 'POST', `/v1/tables/${t}/rows/query`, { filter: { field: 'user_id', op: 'eq', value: bob.userId } })).status).toBe(400);
    expect((await call(server, alice, 'POST', `/v1/tables/${t}/rows/query`, { sort: { field: 'user_id', dir: 'asc' } })).status).toBe(400);
    // Sorting by user_id (secret key): rows grouped by owner in order, the ownerless row last ascending, first descending.
    for (const dir of ['asc', 'desc'] as const) {
      const owners = (await queryAll(server, secret, t, { sort: { field: 'user_id', dir }, limit: 1 })).map((r) => r.user_id);
      const withOwner = [alice.userId, bob.userId, bob.userId].sort();
      expect(owners).toEqual(dir === 'asc' ? [...withOwner, null] : [null, ...withOwner.reverse()]);
    }
    expect((await call(server, bob, 'GET', `/v1/tables/${t}/rows/${b.row_id}`)).body.data).toEqual({ n: 2 });
    expect((await call(server, secret, 'PATCH', `/v1/tables/${t}/rows/${a.row_id}`, { data: { n: 10 } })).body.data).toEqual({ n: 10 });
  });

  it('a revoked or missing session is 401', async () => {
    const table = await makeTable(server, secret, [{ name: 'n', type: 'int' }]);
    expect((await call(server, { bearer: 'garbage', publishableKey: app.publishable_key }, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { n: 1 } })).status).toBe(401);
    expect((await call(server, { bearer: alice.bearer }, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { n: 1 } })).status).toBe(401);
  });
});

describe('10 malformed bodies are 400 and change nothing', () => {
  it('bad JSON, misspelt or unknown top-level fields, wrong shapes', async () => {
    const table = await makeTable(server, secret, [{ name: 'n', type: 'int' }]);
    const t = table.table_id;
    const raw = await api(server, 'POST', `/v1/tables/${t}/rows`, { bearer: app.secret_key, rawBody: '{"data": {"n": 1}', headers: { 'content-type': 'application/json' } });
    expect(raw.status).toBe(400);
    expect(raw.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
    const cases: [string, string, unknown][] = [
      ['POST', `/v1/tables/${t}/rows`, { data: { n: 1 }, extra: true }],
      ['POST', `/v1/tables/${t}/rows`, { dta: { n: 1 } }],
      ['PATCH', `/v1/tables/${t}/rows/00000000-0000-4000-8000-000000000000`, { data: { n: 1 }, user_id: null }],
      ['POST', `/v1/tables/${t}/rows/query`, { filtre: { field: 'n', op: 'eq', value: 1 } }],
      ['POST', `/v1/tables/${t}/rows/query`, { filter: { field: 'n', op: 'eq', value: 1, extra: 1 } }],
      ['POST', `/v1/tables/${t}/rows/query`, { sort: 'n' }],
      ['POST', `/v1/tables/${t}/columns`, { name: 'x', type: 'int', unique: true }],
      ['PATCH', `/v1/tables/${t}/columns/${table.columns[0]!.column_id}`, { nmae: 'm' }],
      ['POST', '/v1/tables', { name: tableName(), colums: [{ name: 'x', type: 'int' }] }],
      ['POST', '/v1/tables', [1, 2]],
    ];
    for (const [method, path, body] of cases) {
      const res = await call(server, secret, method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.detail).toEqual(expect.any(String));
    }
    expect(await queryAll(server, secret, t, {})).toHaveLength(0);
    expect((await call(server, secret, 'GET', `/v1/tables/${t}`)).body.columns.map((c: { name: string }) => c.name)).toEqual(['n']);
  });
});
