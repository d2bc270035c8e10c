import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { asSecret, call, insertRow, makeTable, queryAll, rowBytes, sessionUser, storage, tableBytes, tableName, type Caller } from '../helpers/tables.js';

// docs/tables.md: storage (used_bytes counts what rows and tables cost by the documented formula,
// per-app limit, 413 at the limit even for racing writers), row size, tables per app; deleting a table
// gives its bytes back. That the formula follows the disk is tables-storage-cost.test.ts.

const SERVER_LIMIT = 1_000_000;
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ TABLES_STORAGE_LIMIT_BYTES: String(SERVER_LIMIT) });
});
afterAll(async () => {
  await server?.stop();
});

const bytes = (data: unknown) => Buffer.byteLength(JSON.stringify(data));

describe('10 storage: used_bytes is the documented cost of every table and row', () => {
  it('follows inserts, PATCH, deletes, column renames and deletes, and table deletion; another app is untouched', async () => {
    const app = await createApp(server);
    const other = await createApp(server, { tenantId: app.tenant_id });
    const secret = asSecret(app);
    const user = await sessionUser(server, app);
    expect(await storage(server, secret)).toEqual({ used_bytes: 0, limit_bytes: SERVER_LIMIT, used_percent: 0 });
    const cols = [{ name: 'title', type: 'text' }, { name: 'n', type: 'int', default_value: 7 }];
    const table = await makeTable(server, secret, cols);
    const t = table.table_id;
    expect((await storage(server, secret)).used_bytes).toBe(tableBytes(cols));
    const a = await insertRow(server, secret, t, { title: 'héllo ✓' });
    const b = await insertRow(server, user, t, { title: 'x', n: 12345 });
    let expected = tableBytes(cols) + rowBytes(cols, { title: 'héllo ✓', n: 7 }) + rowBytes(cols, { title: 'x', n: 12345 });
    expect((await storage(server, user)).used_bytes).toBe(expected);
    expect((await storage(server, secret)).used_percent).toBeCloseTo((expected / SERVER_LIMIT) * 100, 1);

    await call(server, secret, 'PATCH', `/v1/tables/${t}/rows/${a.row_id}`, { data: { title: null } });
    expected += rowBytes(cols, { n: 7 }) - rowBytes(cols, { title: 'héllo ✓', n: 7 });
    expect((await storage(server, secret)).used_bytes).toBe(expected);

    const n = table.columns[1]!.column_id;
    await call(server, secret, 'PATCH', `/v1/tables/${t}/columns/${n}`, { name: 'count' });
    const renamed = [cols[0]!, { name: 'count', type: 'int' }];
    expected = tableBytes(renamed) + rowBytes(renamed, { count: 7 }) + rowBytes(renamed, { title: 'x', count: 12345 });
    expect((await storage(server, secret)).used_bytes).toBe(expected);

    await call(server, secret, 'DELETE', `/v1/tables/${t}/columns/${n}`);
    const left = [cols[0]!];
    expected = tableBytes(left) + rowBytes(left, {}) + rowBytes(left, { title: 'x' });
    expect((await storage(server, secret)).used_bytes).toBe(expected);

    await call(server, secret, 'DELETE', `/v1/tables/${t}/rows/${b.row_id}`);
    expected = tableBytes(left) + rowBytes(left, {});
    expect((await storage(server, secret)).used_bytes).toBe(expected);

    const json = [{ name: 'v', type: 'json' }];
    const second = await makeTable(server, secret, json);
    await insertRow(server, secret, second.table_id, { v: { deep: ['ü', 1.5, null] } });
    await call(server, asSecret(other), 'POST', '/v1/tables', { name: tableName() });
    expected += tableBytes(json) + rowBytes(json, { v: { deep: ['ü', 1.5, null] } });
    expect((await storage(server, secret)).used_bytes).toBe(expected);
    expect((await storage(server, asSecret(other))).used_bytes).toBe(tableBytes([]));

    expect((await call(server, secret, 'DELETE', `/v1/tables/${second.table_id}`)).status).toBe(200);
    expect((await call(server, secret, 'DELETE', `/v1/tables/${t}`)).status).toBe(200);
    expect((await storage(server, secret)).used_bytes).toBe(0);
  });

  it('the formula: 500 bytes a row, 64 per indexed column (null or not), text 3x more; json columns are not indexed', async () => {
    const secret = asSecret(await createApp(server));
    const cols = [{ name: 's', type: 'text' }, { name: 'i', type: 'int' }, { name: 'j', type: 'json' }];
    const table = await makeTable(server, secret, cols);
    expect((await storage(server, secret)).used_bytes).toBe(40 * 1024 + 2 * 16 * 1024);
    await insertRow(server, secret, table.table_id, {});
    expect((await storage(server, secret)).used_bytes).toBe(40 * 1024 + 2 * 16 * 1024 + bytes({}) + 500 + 2 * 64);
    await insertRow(server, secret, table.table_id, { s: 'ü', j: 'ü' });
    expect((await storage(server, secret)).used_bytes).toBe(40 * 1024 + 2 * 16 * 1024 + 2 * (500 + 2 * 64) + bytes({}) + bytes({ s: 'ü', j: 'ü' }) + 3 * 2);
  });
});

describe('10 storage: the limit', () => {
  it('a write past the limit is 413 and nothing is written (insert, PATCH, new column, new table)', async () => {
    const cols = [{ name: 's', type: 'text' }];
    const limit = tableBytes(cols) + rowBytes(cols, { s: 'a'.repeat(80) }) + rowBytes(cols, { s: 'abcd' });
    const app = await createApp(server, { args: ['--tables-limit-bytes', String(limit)] });
    const secret = asSecret(app);
    expect((await storage(server, secret)).limit_bytes).toBe(limit);
    const table = await makeTable(server, secret, cols);
    const row = await insertRow(server, secret, table.table_id, { s: 'a'.repeat(80) });
    const fits = await call(server, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { s: 'abcd' } }); // exactly the limit
    expect(fits.status).toBe(201);
    const past = await call(server, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: {} });
    expect(past.status).toBe(413);
    expect(past.body.detail).toMatch(/limit/);
    expect((await call(server, secret, 'PATCH', `/v1/tables/${table.table_id}/rows/${row.row_id}`, { data: { s: 'a'.repeat(81) } })).status).toBe(413);
    expect((await call(server, secret, 'POST', `/v1/tables/${table.table_id}/columns`, { name: 'n', type: 'int', default_value: 1 })).status).toBe(413);
    expect((await call(server, secret, 'POST', `/v1/tables/${table.table_id}/columns`, { name: 'j', type: 'json' })).status).toBe(201); // not indexed: costs nothing yet
    expect((await call(server, secret, 'POST', '/v1/tables', { name: tableName() })).status).toBe(413);
    expect(await storage(server, secret)).toEqual({ used_bytes: limit, limit_bytes: limit, used_percent: 100 });
    const rows = await queryAll(server, secret, table.table_id, {});
    expect(rows.map((r) => r.data.s).sort()).toEqual(['a'.repeat(80), 'abcd']);
    expect((await call(server, secret, 'GET', `/v1/tables/${table.table_id}`)).body.columns).toHaveLength(2);
    expect((await call(server, secret, 'GET', '/v1/tables')).body.tables).toHaveLength(1);
    // Shrinking always fits.
    expect((await call(server, secret, 'PATCH', `/v1/tables/${table.table_id}/rows/${row.row_id}`, { data: { s: 'a' } })).status).toBe(200);
  });

  it('concurrent writers racing for the last bytes: exactly the writes that fit succeed', async () => {
    const cols = [{ name: 's', type: 'text' }];
    const data = { s: 'y'.repeat(92) };
    const limit = tableBytes(cols) + rowBytes(cols, { s: 'x'.repeat(492) }) + 5 * rowBytes(cols, data); // 5 of 24 fit
    const app = await createApp(server, { args: ['--tables-limit-bytes', String(limit)] });
    const secret = asSecret(app);
    const table = await makeTable(server, secret, cols);
    await insertRow(server, secret, table.table_id, { s: 'x'.repeat(492) });
    const results = await Promise.all(Array.from({ length: 24 }, () => call(server, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 413)).toHaveLength(19);
    expect((await storage(server, secret)).used_bytes).toBe(limit);
    expect(await queryAll(server, secret, table.table_id, {})).toHaveLength(6);
  });

  it('app update --tables-limit-bytes changes the limit at once; the app shows it', async () => {
    const app = await createApp(server);
    const secret = asSecret(app);
    expect(app.tables_limit_bytes).toBeNull();
    const cols = [{ name: 'n', type: 'int' }];
    const limit = tableBytes(cols) + rowBytes(cols, {}) + 3; // {"n":1} is 5 bytes more than {}
    const updated = await cliJson<{ tables_limit_bytes: number }>(server, ['app', 'update', app.app_id, '--tables-limit-bytes', String(limit)]);
    expect(updated.tables_limit_bytes).toBe(limit);
    const table = await makeTable(server, secret, cols);
    expect((await call(server, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { n: 1 } })).status).toBe(413);
    expect((await call(server, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: {} })).status).toBe(201);
    const used = limit - 3;
    expect(await storage(server, secret)).toEqual({ used_bytes: used, limit_bytes: limit, used_percent: expect.closeTo((used / limit) * 100, 1) });
  });
});

describe('10 limits: row size and tables per app', () => {
  it('row data over 256 KiB is 413; exactly 256 KiB is accepted', async () => {
    const app = await createApp(server, { args: ['--tables-limit-bytes', '10000000'] });
    const secret = asSecret(app);
    const table = await makeTable(server, secret, [{ name: 'j', type: 'json' }]);
    const fits = { j: 'z'.repeat(256 * 1024 - bytes({ j: '' })) };
    expect(bytes(fits)).toBe(256 * 1024);
    expect((await call(server, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: fits })).status).toBe(201);
    const big = await call(server, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: { j: `${fits.j}z` } });
    expect(big.status).toBe(413);
    expect(big.body.detail).toMatch(/256 KiB/);
    expect(await queryAll(server, secret, table.table_id, {})).toHaveLength(1);
  });

  it('at most 200 tables per application, even when created concurrently; deleting one frees a place', async () => {
    const app = await createApp(server, { args: ['--tables-limit-bytes', String(200 * tableBytes([{ name: 'n', type: 'int' }]) + 10 * tableBytes([]))] });
    const secret: Caller = asSecret(app);
    const create = (i: number) => call(server, secret, 'POST', '/v1/tables', { name: `t${i}`, columns: [{ name: 'n', type: 'int' }] });
    for (let i = 0; i < 190; i += 10) {
      for (const res of await Promise.all(Array.from({ length: 10 }, (_, j) => create(i + j)))) expect(res.status).toBe(201);
    }
    // 16 racing for the last 10 places.
    const results = await Promise.all(Array.from({ length: 16 }, (_, j) => create(190 + j)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).toEqual(Array(6).fill(409));
    expect(refused[0]!.body.detail).toMatch(/200 tables/);
    expect((await call(server, secret, 'GET', '/v1/tables')).body.tables).toHaveLength(200);
    await call(server, secret, 'DELETE', `/v1/tables/${results.find((r) => r.status === 201)!.body.table_id}`);
    expect((await call(server, secret, 'POST', '/v1/tables', { name: 'again' })).status).toBe(201);
  }, 120_000);
});

describe('12 metering: billing counts the same table bytes (issue 12, table storage)', () => {
  it("GET /v1/billing shows the tenant's table_storage_bytes, summed over its apps", async () => {
    const app = await createApp(server);
    const sibling = await createApp(server, { tenantId: app.tenant_id });
    const cols = [{ name: 'title', type: 'text' }];
    const table = await makeTable(server, asSecret(app), cols);
    const other = await makeTable(server, asSecret(sibling), cols);
    await insertRow(server, asSecret(app), table.table_id, { title: 'one' });
    await insertRow(server, asSecret(sibling), other.table_id, { title: 'two!' });
    const expected = 2 * tableBytes(cols) + rowBytes(cols, { title: 'one' }) + rowBytes(cols, { title: 'two!' });
    const billing = await call(server, asSecret(app), 'GET', '/v1/billing');
    expect(billing.status).toBe(200);
    expect(billing.body.usage.table_storage_bytes).toBe(expected);
  });
});
