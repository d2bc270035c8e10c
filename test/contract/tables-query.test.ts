import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveKeyGateSql } from '../../src/store/repos/applications.js';
import { execDatabase, queryDatabase, TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { sharedServer, type TestServer } from '../helpers/server.js';
import { asSecret, call, insertRow, makeTable, query, queryAll, sessionUser, type Caller } from '../helpers/tables.js';

// docs/tables.md: POST .../rows/query (every op, both sort directions, AND-lists, cursors).

let server: TestServer;
let app: TestApp;
let other: TestApp;
let secret: Caller;
let tableId: string;

// Every sortable type, with nulls (a missing field) in each column.
const ROWS = [
  { k: 0, i: 5, f: 1.5, b: true, t: 'Apple', d: '2026-01-03', j: { x: 1 } },
  { k: 1, i: -2, f: 0.25, b: false, t: 'banana split', d: '2025-12-31T23:00:00Z' },
  { k: 2, i: 5, f: 9, t: 'cherry', d: '2026-06-01' },
  { k: 3, f: -1, b: true, t: '100% juice', j: [1] },
  { k: 4, i: 40, b: false, d: '2026-01-03' },
  { k: 5, i: 7, f: 2.5, b: true, t: 'APPLE pie', d: '2027-01-01' },
  { k: 6, i: 0, f: 0, b: false, t: 'under_score', d: '2026-01-02' },
];

beforeAll(async () => {
  server = await sharedServer();
  app = await createApp(server, { name: 'Shop' });
  other = await createApp(server, { tenantId: app.tenant_id, name: 'Blog' });
  secret = asSecret(app);
  const table = await makeTable(server, secret, [
    { name: 'k', type: 'int', required: true },
    { name: 'i', type: 'int' },
    { name: 'f', type: 'float' },
    { name: 'b', type: 'bool' },
    { name: 't', type: 'text' },
    { name: 'd', type: 'date' },
    { name: 'j', type: 'json' },
  ]);
  tableId = table.table_id;
  for (const row of ROWS) await insertRow(server, secret, tableId, row);
});
afterAll(async () => {
  await server?.stop();
});

const ks = async (body: Record<string, unknown>) => (await queryAll(server, secret, tableId, { ...body, limit: 2 })).map((r) => r.data.k as number);
const sorted = (list: number[]) => [...list].sort((a, b) => a - b);

describe('10 query: filter ops', () => {
  const cases: [string, unknown, number[]][] = [
    ['eq int', { field: 'i', op: 'eq', value: 5 }, [0, 2]],
    ['ne int keeps nulls', { field: 'i', op: 'ne', value: 5 }, [1, 3, 4, 5, 6]],
    ['gt int', { field: 'i', op: 'gt', value: 5 }, [4, 5]],
    ['gte int', { field: 'i', op: 'gte', value: 5 }, [0, 2, 4, 5]],
    ['lt float', { field: 'f', op: 'lt', value: 0.25 }, [3, 6]],
    ['lte float', { field: 'f', op: 'lte', value: 0.25 }, [1, 3, 6]],
    ['eq bool', { field: 'b', op: 'eq', value: false }, [1, 4, 6]],
    ['in text', { field: 't', op: 'in', value: ['cherry', 'Apple', 'none'] }, [0, 2]],
    ['contains is case-insensitive', { field: 't', op: 'contains', value: 'apple' }, [0, 5]],
    ['contains escapes % and _', { field: 't', op: 'contains', value: '0%' }, [3]],
    ['contains _ is literal', { field: 't', op: 'contains', value: 'r_s' }, [6]],
    ['gte date (date-only means midnight UTC)', { field: 'd', op: 'gte', value: '2026-01-03' }, [0, 2, 4, 5]],
    ['lt date-time with offset', { field: 'd', op: 'lt', value: '2026-01-01T01:00:00+01:00' }, [1]],
    ['is_null true (absent)', { field: 'i', op: 'is_null', value: true }, [3]],
    ['is_null false', { field: 'j', op: 'is_null', value: false }, [0, 3]],
    // Every op on every type it applies to (rows without a value never match but is_null and ne).
    ['in int', { field: 'i', op: 'in', value: [5, 40] }, [0, 2, 4]],
    ['lte int', { field: 'i', op: 'lte', value: 0 }, [1, 6]],
    ['lt int', { field: 'i', op: 'lt', value: 0 }, [1]],
    ['eq float', { field: 'f', op: 'eq', value: 2.5 }, [5]],
    ['ne float keeps nulls', { field: 'f', op: 'ne', value: 0 }, [0, 1, 2, 3, 4, 5]],
    ['gt float', { field: 'f', op: 'gt', value: 1.5 }, [2, 5]],
    ['gte float', { field: 'f', op: 'gte', value: 1.5 }, [0, 2, 5]],
    ['in float', { field: 'f', op: 'in', value: [0.25, 9] }, [1, 2]],
    ['ne bool keeps nulls', { field: 'b', op: 'ne', value: true }, [1, 2, 4, 6]],
    ['in bool', { field: 'b', op: 'in', value: [true] }, [0, 3, 5]],
    ['is_null true on bool', { field: 'b', op: 'is_null', value: true }, [2]],
    ['eq text is exact', { field: 't', op: 'eq', value: 'cherry' }, [2]],
    ['ne text keeps nulls', { field: 't', op: 'ne', value: 'cherry' }, [0, 1, 3, 4, 5, 6]],
    ['gt text', { field: 't', op: 'gt', value: 'b' }, [1, 2, 6]],
    ['gte text', { field: 't', op: 'gte', value: 'cherry' }, [2, 6]],
    ['lt text', { field: 't', op: 'lt', value: 'b' }, [0, 3, 5]],
    ['lte text', { field: 't', op: 'lte', value: 'cherry' }, [0, 1, 2, 3, 5]],
    ['is_null true on text', { field: 't', op: 'is_null', value: true }, [4]],
    ['eq date', { field: 'd', op: 'eq', value: '2026-01-03' }, [0, 4]],
    ['eq date as a date-time', { field: 'd', op: 'eq', value: '2026-01-03T00:00:00.000Z' }, [0, 4]],
    ['ne date keeps nulls', { field: 'd', op: 'ne', value: '2026-01-03' }, [1, 2, 3, 5, 6]],
    ['gt date', { field: 'd', op: 'gt', value: '2026-01-03' }, [2, 5]],
    ['lte date', { field: 'd', op: 'lte', value: '2026-01-02' }, [1, 6]],
    ['in date', { field: 'd', op: 'in', value: ['2026-06-01', '2026-01-02T00:00:00Z'] }, [2, 6]],
    ['is_null true on date', { field: 'd', op: 'is_null', value: true }, [3]],
    ['is_null true on json', { field: 'j', op: 'is_null', value: true }, [1, 2, 4, 5, 6]],
    ['created_at gte the epoch', { field: 'created_at', op: 'gte', value: '2000-01-01' }, [0, 1, 2, 3, 4, 5, 6]],
  ];
  for (const [name, filter, expected] of cases) {
    it(name, async () => {
      expect(sorted(await ks({ filter }))).toEqual(expected);
    });
  }

  it('a list of conditions is AND', async () => {
    const filter = [
      { field: 'i', op: 'gte', value: 0 },
      { field: 'b', op: 'eq', value: true },
      { field: 'd', op: 'is_null', value: false },
    ];
    expect(sorted(await ks({ filter }))).toEqual([0, 5]);
    expect(await ks({ filter: [] })).toHaveLength(ROWS.length);
  });
});

describe('10 query: sort', () => {
  const byKey = (field: string, dir: 'asc' | 'desc') => {
    const withValue = ROWS.filter((r) => (r as Record<string, unknown>)[field] !== undefined);
    const value = (r: (typeof ROWS)[number]) => {
      const v = (r as Record<string, unknown>)[field];
      return field === 'd' ? Date.parse(v as string) : field === 'b' ? Number(v) : v;
    };
    return { withValue, value };
  };
  for (const field of ['i', 'f', 'b', 't', 'd']) {
    for (const dir of ['asc', 'desc'] as const) {
      it(`${field} ${dir}: values in order (ties by row), rows without a value last ascending, first descending`, async () => {
        const rows = await queryAll(server, secret, tableId, { sort: { field, dir }, limit: 2 });
        expect(rows).toHaveLength(ROWS.length);
        const values = rows.map((r) => r.data[field]).filter((v) => v !== undefined);
        const { value } = byKey(field, dir);
        const expected = ROWS.filter((r) => (r as Record<string, unknown>)[field] !== undefined)
          .map((r) => ({ r, v: value(r) as number | string }))
          .sort((a, b) => (a.v < b.v ? -1 : a.v > b.v ? 1 : 0));
        if (dir === 'desc') expected.reverse();
        const norm = (v: unknown) => (field === 'd' ? Date.parse(v as string) : field === 'b' ? Number(v) : v);
        expect(values.map(norm)).toEqual(expected.map((e) => e.v));
        const nullsAt = rows.map((r, i) => (r.data[field] === undefined ? i : -1)).filter((i) => i >= 0);
        const nullCount = ROWS.length - values.length;
        expect(nullsAt).toEqual(dir === 'asc' ? Array.from({ length: nullCount }, (_, i) => ROWS.length - nullCount + i) : Array.from({ length: nullCount }, (_, i) => i));
      });
    }
  }

  it('a column made required (its nulls filled with the default) sorts every row among the values, both ways, across pages', async () => {
    const table = await makeTable(server, secret, [{ name: 'n', type: 'int' }]);
    for (const n of [3, undefined, 1, undefined, 2]) await insertRow(server, secret, table.table_id, n === undefined ? {} : { n });
    const before = await query(server, secret, table.table_id, { sort: { field: 'n', dir: 'desc' }, limit: 1 });
    const nullsCursor: string = before.body.next_cursor; // made in the null segment (first descending)
    const made = await call(server, secret, 'PATCH', `/v1/tables/${table.table_id}/columns/${table.columns[0].column_id}`, { required: true, default_value: 0 });
    expect(made.status).toBe(200);
    const values = async (dir: 'asc' | 'desc') => (await queryAll(server, secret, table.table_id, { sort: { field: 'n', dir }, limit: 2 })).map((r) => r.data.n);
    expect(await values('asc')).toEqual([0, 0, 1, 2, 3]);
    expect(await values('desc')).toEqual([3, 2, 1, 0, 0]);
    // A cursor from the null segment still pages (as before the change): that segment is empty now, the values follow.
    const after = await query(server, secret, table.table_id, { sort: { field: 'n', dir: 'desc' }, limit: 10, cursor: nullsCursor });
    expect(after.status).toBe(200);
    expect(after.body.rows.map((r: { data: { n: number } }) => r.data.n)).toEqual([3, 2, 1, 0, 0]);
  });

  it('a column named like a property every object has (constructor): rows are written, read and paged through values and nulls, both ways', async () => {
    const table = await makeTable(server, secret, [
      { name: 'k', type: 'int', required: true },
      { name: 'constructor', type: 'int' },
    ]);
    // Written without a value first (null), then through the column's default.
    for (const k of [0, 1]) expect((await insertRow(server, secret, table.table_id, { k })).data).toEqual({ k });
    const column = table.columns.find((c: { name: string }) => c.name === 'constructor')!;
    expect((await call(server, secret, 'PATCH', `/v1/tables/${table.table_id}/columns/${column.column_id}`, { default_value: 5 })).status).toBe(200);
    for (const k of [2, 3]) expect((await insertRow(server, secret, table.table_id, { k })).data).toEqual({ k, constructor: 5 });
    // Page by page (a cursor after every row): each row once, values then nulls ascending, nulls first descending.
    for (const [dir, expected] of [['asc', [5, 5, null, null]], ['desc', [null, null, 5, 5]]] as const) {
      const rows = await queryAll(server, secret, table.table_id, { sort: { field: 'constructor', dir }, limit: 1 });
      expect(rows.map((r) => (Object.hasOwn(r.data, 'constructor') ? r.data.constructor : null))).toEqual(expected);
      expect(rows.map((r) => r.data.k).sort()).toEqual([0, 1, 2, 3]);
    }
  });

  it('no sort means created_at, row_id ascending; updated_at sorts too', async () => {
    const rows = await queryAll(server, secret, tableId, { limit: 3 });
    const keys = rows.map((r) => `${r.created_at} ${r.row_id}`);
    expect(keys).toEqual([...keys].sort());
    const desc = await queryAll(server, secret, tableId, { sort: { field: 'updated_at', dir: 'desc' }, limit: 3 });
    expect(desc.map((r) => r.updated_at)).toEqual(desc.map((r) => r.updated_at).sort().reverse());
  });
});

describe('10 query: refused with 400', () => {
  const bad: [string, unknown][] = [
    ['unknown field', { filter: { field: 'nope', op: 'eq', value: 1 } }],
    ['unknown op', { filter: { field: 'i', op: 'like', value: 1 } }],
    ['wrong value type', { filter: { field: 'i', op: 'eq', value: 'x' } }],
    ['contains on int', { filter: { field: 'i', op: 'contains', value: '1' } }],
    ['ordering op on json', { filter: { field: 'j', op: 'gt', value: 1 } }],
    ['eq on json', { filter: { field: 'j', op: 'eq', value: { x: 1 } } }],
    ['contains on date', { filter: { field: 'd', op: 'contains', value: '2026' } }],
    ['a date that is not ISO 8601', { filter: { field: 'd', op: 'gt', value: 'next tuesday' } }],
    ['a float for an int column', { filter: { field: 'i', op: 'eq', value: 1.5 } }],
    ['sort on json', { sort: { field: 'j', dir: 'asc' } }],
    ['bad dir', { sort: { field: 'i', dir: 'up' } }],
    ['in with 101 values', { filter: { field: 'i', op: 'in', value: Array.from({ length: 101 }, (_, i) => i) } }],
    ['in with a huge list', { filter: { field: 'i', op: 'in', value: Array.from({ length: 20000 }, (_, i) => i) } }],
    ['in without a list', { filter: { field: 'i', op: 'in', value: 3 } }],
    ['is_null with a non-boolean', { filter: { field: 'i', op: 'is_null', value: 'yes' } }],
    ['eq without a value', { filter: { field: 'i', op: 'eq' } }],
    ['limit 0', { limit: 0 }],
    ['limit 201', { limit: 201 }],
    ['filter of the wrong shape', { filter: 'i = 1' }],
    ['row_id is not a sort field', { sort: { field: 'row_id', dir: 'asc' } }],
  ];
  for (const [name, body] of bad) {
    it(name, async () => {
      const res = await query(server, secret, tableId, body);
      expect(res.status).toBe(400);
      expect(res.body.detail).toEqual(expect.any(String));
    });
  }

  it('limit 200 and the in-list of 100 values are accepted', async () => {
    expect((await query(server, secret, tableId, { limit: 200, filter: { field: 'i', op: 'in', value: Array.from({ length: 100 }, (_, i) => i) } })).status).toBe(200);
  });
});

describe('10 query: cursors are opaque, tamper-evident and keyset-based', () => {
  it('pages of `limit` rows with next_cursor, null on the last page', async () => {
    const first = await query(server, secret, tableId, { sort: { field: 'k', dir: 'asc' }, limit: 3 });
    expect(first.body.rows.map((r: { data: { k: number } }) => r.data.k)).toEqual([0, 1, 2]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await query(server, secret, tableId, { sort: { field: 'k', dir: 'asc' }, limit: 4, cursor: first.body.next_cursor });
    expect(second.body.rows.map((r: { data: { k: number } }) => r.data.k)).toEqual([3, 4, 5, 6]);
    expect(second.body.next_cursor).toBeNull();
  });

  it('a forged, edited or foreign cursor is 400', async () => {
    const first = await query(server, secret, tableId, { sort: { field: 'k', dir: 'asc' }, limit: 2 });
    const cursor: string = first.body.next_cursor;
    const [payload, tag] = cursor.split('.');
    const edited = Buffer.from(payload!, 'base64url').toString().replace(/,1,/, ',5,');
    const forged = [
      'garbage',
      `${Buffer.from(edited).toString('base64url')}.${tag}`,
      `${payload}.${Buffer.alloc(16).toString('base64url')}`,
      `${payload}.${tag}.x`,
      cursor.slice(0, -2),
    ];
    for (const bad of forged) expect((await query(server, secret, tableId, { sort: { field: 'k', dir: 'asc' }, cursor: bad })).status, bad).toBe(400);
    // Another sort, another table, another app: refused.
    expect((await query(server, secret, tableId, { sort: { field: 'k', dir: 'desc' }, cursor })).status).toBe(400);
    const otherTable = await makeTable(server, secret, [{ name: 'k', type: 'int' }]);
    expect((await query(server, secret, otherTable.table_id, { sort: { field: 'k', dir: 'asc' }, cursor })).status).toBe(400);
    const foreign = asSecret(other);
    const theirs = await makeTable(server, foreign, [{ name: 'k', type: 'int' }]);
    expect((await query(server, foreign, theirs.table_id, { sort: { field: 'k', dir: 'asc' }, cursor })).status).toBe(400);
  });

  it('paging while rows are inserted yields no duplicates and no gaps among the rows that existed', async () => {
    const table = await makeTable(server, secret, [{ name: 'n', type: 'int' }]);
    const existing = new Set<string>();
    for (let n = 0; n < 30; n++) existing.add((await insertRow(server, secret, table.table_id, { n: n % 7 })).row_id);
    for (const sort of [undefined, { field: 'n', dir: 'asc' }, { field: 'n', dir: 'desc' }]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let inserts = 0;
      do {
        // Concurrent writers between and during page reads.
        const writers = Array.from({ length: 3 }, () => call(server, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { n: inserts++ % 7 } }));
        const page = await query(server, secret, table.table_id, { sort, limit: 4, cursor });
        await Promise.all(writers);
        expect(page.status).toBe(200);
        seen.push(...page.body.rows.map((r: { row_id: string }) => r.row_id));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of existing) expect(seen).toContain(id);
    }
  });
});

describe('10 query: a page shows each row as reading it does', () => {
  it('every type and its edge values, nulls absent, user_id set and not', async () => {
    const user = await sessionUser(server, app);
    const table = await makeTable(server, secret, [
      { name: 'i', type: 'int' },
      { name: 'f', type: 'float' },
      { name: 'b', type: 'bool' },
      { name: 't', type: 'text' },
      { name: 'd', type: 'date' },
      { name: 'j', type: 'json' },
    ]);
    const rows = [
      { i: Number.MAX_SAFE_INTEGER, f: 1e21, b: false, t: 'quote " backslash \\ tab \t nl \n nul-ish \u0001 \u001f', d: '0001-01-01', j: { z: 1, a: [1.5, 'x', null, { b: true }], '': 'empty' } },
      { i: -Number.MAX_SAFE_INTEGER, f: 0.1, b: true, t: 'émoji 🙂 \u2028 ascii', d: '9999-12-31T23:59:59.999Z', j: 'a string' },
      { i: 0, f: -1.5e-7, t: '', d: '2026-02-03T04:05:06.7+01:00', j: null },
      { f: 5e-324, j: [] },
      { j: 0 },
      {},
    ];
    const made = [];
    for (const data of rows) made.push(await insertRow(server, secret, table.table_id, data));
    made.push(await insertRow(server, secret, table.table_id, { t: 'mine', j: { nested: { deeper: [{}] } } }, { user_id: user.userId }));
    // -0 cannot be written by JSON.stringify: sent as it is, it reads back as 0 on every path.
    const negativeZero = await api(server, 'POST', `/v1/tables/${table.table_id}/rows`, {
      bearer: secret.bearer,
      headers: { 'content-type': 'application/json' },
      rawBody: '{"data":{"f":-0}}',
    });
    expect(negativeZero.status).toBe(201);
    made.push(negativeZero.body);

    const page = await query(server, secret, table.table_id, { limit: 200 });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(page.body.next_cursor).toBeNull();
    expect(page.body.rows).toHaveLength(made.length);
    // Rows made in the same millisecond follow row_id order: each is found by its id.
    const paged = made.map((row) => page.body.rows.find((r: { row_id: string }) => r.row_id === row.row_id));
    for (const [n, row] of made.entries()) {
      const read = await call(server, secret, 'GET', `/v1/tables/${table.table_id}/rows/${row.row_id}`);
      expect(read.status).toBe(200);
      expect(paged[n], `row ${n}`).toStrictEqual(read.body);
      expect(Object.keys(paged[n].data), `row ${n}: data in column order`).toEqual(Object.keys(read.body.data));
      expect(Object.keys(paged[n]), `row ${n}: fields`).toEqual(['row_id', 'data', 'user_id', 'organization_id', 'created_by', 'created_at', 'updated_at']);
    }
    expect(paged[0].data).toStrictEqual({ ...rows[0], d: '0001-01-01T00:00:00.000Z' });
    expect(paged[2].data).toStrictEqual({ i: 0, f: -1.5e-7, t: '', d: '2026-02-03T03:05:06.700Z' });
    expect(Object.is(paged[made.length - 1].data.f, 0)).toBe(true);
    expect(paged[6].user_id).toBe(user.userId);

    // The session user's page: only their row, the same record.
    const own = await query(server, user, table.table_id, {});
    expect(own.status).toBe(200);
    expect(own.body.rows).toStrictEqual([paged[6]]);
  });

  it('a table of 100 columns, after a rename: each value under its name, nulls absent', async () => {
    const columns = Array.from({ length: 100 }, (_, n) => ({ name: `c${n}`, type: n % 2 ? 'int' : 'text' }));
    const table = await makeTable(server, secret, columns);
    const pick = [0, 48, 49, 50, 51, 98, 99];
    const data = Object.fromEntries(pick.map((n) => [`c${n}`, n % 2 ? n : `v${n}`]));
    const row = await insertRow(server, secret, table.table_id, data);
    const sparse = await insertRow(server, secret, table.table_id, { c50: 'only' });
    const renamed = await call(server, secret, 'PATCH', `/v1/tables/${table.table_id}/columns/${table.columns[50]!.column_id}`, { name: 'fifty' });
    expect(renamed.status).toBe(200);
    const page = await query(server, secret, table.table_id, { sort: { field: 'fifty', dir: 'desc' } });
    expect(page.status).toBe(200);
    const { c50, ...rest } = data;
    expect(page.body.rows.map((r: { data: unknown }) => r.data)).toStrictEqual([{ ...rest, fifty: c50 }, { fifty: 'only' }]);
    expect(page.body.rows.map((r: { row_id: string }) => r.row_id)).toEqual([row.row_id, sparse.row_id]);
  });
});

describe('10 queries at scale: a filter whose rows sit at the far end of the sort', () => {
  it('is 400 with a hint when it keeps too few rows to walk and too many to sort; the other direction fills at once', async () => {
    const table = await makeTable(server, secret, [
      { name: 'flag', type: 'int' },
      { name: 'rank', type: 'int' },
    ]);
    const hex = (id: string) => id.replace(/-/g, '');
    const [flag, rank] = ['flag', 'rank'].map((name) => hex(table.columns.find((c) => c.name === name)!.column_id));
    // 12,000 rows straight into the data table: rank n, flag 1 from rank 1,500 on (10,500 rows).
    const columns = `row_id, user_id, created_at, updated_at, size_bytes, c_${flag}, c_${rank}`;
    const values = `null, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 30, case when n >= 1500 then 1 else 0 end, n`;
    await execDatabase(
      server.databaseUrl,
      TEST_DB === 'postgres'
        ? `insert into t_${hex(table.table_id)} (${columns}) select md5(n::text), ${values} from generate_series(0, 11999) n`
        : `with recursive s(n) as (select 0 union all select n + 1 from s where n < 11999) insert into t_${hex(table.table_id)} (${columns}) select lower(hex(randomblob(16))), ${values} from s`,
    );
    const ask = (dir: 'asc' | 'desc') => query(server, secret, table.table_id, { filter: { field: 'flag', op: 'eq', value: 1 }, sort: { field: 'rank', dir }, limit: 50 });
    // Ascending, the first 1,275 ranks hold no flag = 1, and 10,500 rows match: more than 10,000 to sort.
    const broad = await ask('asc');
    expect(broad.status).toBe(400);
    expect(broad.body.detail).toMatch(/^query too broad: .*sort by a field the filter narrows/);
    const down = await ask('desc');
    expect(down.status).toBe(200);
    expect(down.body.rows.map((r: { data: { rank: number } }) => r.data.rank)).toEqual(Array.from({ length: 50 }, (_, i) => 11_999 - i));
    // A filter the walk fills, ascending: answered as before.
    const zeros = await query(server, secret, table.table_id, { filter: { field: 'flag', op: 'eq', value: 0 }, sort: { field: 'rank', dir: 'asc' }, limit: 50 });
    expect(zeros.status).toBe(200);
    expect(zeros.body.rows.map((r: { data: { rank: number } }) => r.data.rank)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});

describe.skipIf(TEST_DB !== 'postgres')('10 query on PostgreSQL: a page is planned with its own values', () => {
  it('after many pages of a filter that keeps half the rows, one that keeps a few reads only those through its own index', async () => {
    const table = await makeTable(server, secret, [
      { name: 'score', type: 'int' },
      { name: 'due', type: 'date' },
    ]);
    const hex = (id: string) => id.replace(/-/g, '');
    const [score, due] = ['score', 'due'].map((name) => hex(table.columns.find((c) => c.name === name)!.column_id));
    // 5,000 rows written straight into the data table (through the API this would take a while); scores
    // spread over 0-999,999, one due date an hour apart.
    await execDatabase(
      server.databaseUrl,
      `insert into t_${hex(table.table_id)} (row_id, user_id, created_at, updated_at, size_bytes, c_${score}, c_${due})` +
        ` select md5(g::text), null, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 30, (g * 7919) % 1000000, timestamptz '2020-01-01' + g * interval '1 hour'` +
        ` from generate_series(1, 5000) g`,
    );
    await execDatabase(server.databaseUrl, `analyze t_${hex(table.table_id)}`);
    const page = async (min: number) => {
      const res = await query(server, secret, table.table_id, { filter: { field: 'score', op: 'gte', value: min }, sort: { field: 'due', dir: 'desc' }, limit: 50 });
      expect(res.status).toBe(200);
      return res.body.rows as unknown[];
    };
    // Enough runs of one statement for PostgreSQL to settle on a plan made without the values, if it may.
    for (let i = 0; i < 12; i++) expect(await page(500_000)).toHaveLength(50);
    const few = await page(999_000);
    expect(few.length).toBeGreaterThan(0);
    expect(few.length).toBeLessThan(10);
    // What each index read (the server's connections report their counts within about 10 s of going idle):
    // the few rows come through the score index; a plan made without the value walks the due index from
    // its end and filters all 5,000 rows.
    const reads = async () =>
      Object.fromEntries(
        (await queryDatabase(server.databaseUrl, `select indexrelname, idx_tup_read from pg_stat_user_indexes where indexrelname in ('i_${score}', 'i_${due}')`)).map((r) => [
          r.indexrelname,
          Number(r.idx_tup_read),
        ]),
      );
    await expect.poll(async () => (await reads())[`i_${score}`], { timeout: 20_000, interval: 500 }).toBeGreaterThan(0);
    // (The few rows' page first walks at most 1,275 entries of the due index, twice: the bound every database
    // gets, store/repos/custom-rows-query.ts; a plan made without the value would read all 5,000 on top.)
    expect((await reads())[`i_${due}`]).toBeLessThan(12 * 200 + 2 * 1_275);
  });

  it("the database's copy of the live-key rule, in the query's check function, is the service's", async () => {
    const [fn] = await queryDatabase(server.databaseUrl, `select prosrc from pg_proc where proname = 'gh_checked_table_version'`);
    expect(String(fn?.prosrc)).toContain(liveKeyGateSql('p_key_hash', 'p_now', 'secret', 'm.app_id'));
  });
});
