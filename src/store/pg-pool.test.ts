import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool, PoolClient } from 'pg';
import { openPostgresPool, prepareOnPostgres, PREPARE_PER_CONNECTION, STATEMENTS_PER_CONNECTION } from './pg-pool.js';

// Marked texts (PREPARE_PER_CONNECTION) on a real PostgreSQL: each connection keeps a bounded set of
// named statements, and a statement broken by a table change is dropped after its error.
const url = process.env.TEST_PG_URL;

describe.skipIf(process.env.TEST_DB !== 'postgres' || !url)('per-connection named statements (PostgreSQL)', () => {
  const table = `pgpool_${randomBytes(6).toString('hex')}`;
  let pool: Pool;
  let client: PoolClient;

  beforeAll(async () => {
    pool = openPostgresPool(url!, { queryTimeoutMs: 5_000, poolTimeoutMs: 5_000 });
    client = await pool.connect();
    await client.query(`create table ${table} (id int primary key, v int)`);
    await client.query(`insert into ${table} values (1, 10), (2, 20)`);
  });

  afterAll(async () => {
    await client.query(`drop table if exists ${table}`);
    client.release();
    await pool.end();
  });

  const named = async () => (await client.query(`select name, statement from pg_prepared_statements where name like 'gh_c%'`)).rows as Array<{ name: string; statement: string }>;
  const parsed = () => Object.keys((client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements).filter((n) => n.startsWith('gh_c'));

  it('a marked text is prepared once and reused; past the bound the least recently used is deallocated', async () => {
    const text = (n: number) => `${PREPARE_PER_CONNECTION}select v + ${n} as v from ${table} where id = $1`;
    expect((await client.query(text(0), [1])).rows).toEqual([{ v: 10 }]);
    expect((await client.query(text(0), [2])).rows).toEqual([{ v: 20 }]);
    expect((await named()).filter((s) => s.statement === text(0))).toHaveLength(1);

    for (let n = 1; n < STATEMENTS_PER_CONNECTION; n++) expect((await client.query(text(n), [1])).rows).toEqual([{ v: 10 + n }]);
    expect(await named()).toHaveLength(STATEMENTS_PER_CONNECTION);
    await client.query(text(0), [1]); // now the most recently used
    await client.query(text(STATEMENTS_PER_CONNECTION), [1]); // one past the bound: text(1) goes
    await client.query(text(STATEMENTS_PER_CONNECTION + 1), [1]); // and then text(2)
    const texts = new Set((await named()).map((s) => s.statement));
    expect(texts.size).toBe(STATEMENTS_PER_CONNECTION);
    expect([text(0), text(3), text(STATEMENTS_PER_CONNECTION + 1)].every((t) => texts.has(t))).toBe(true);
    expect(texts.has(text(1)) || texts.has(text(2))).toBe(false);
    // node-postgres forgets the deallocated names too (its map would otherwise grow with every text).
    expect(parsed().length).toBe(STATEMENTS_PER_CONNECTION);
  });

  it('a statement whose result type a table change altered fails once, then the text is prepared afresh', async () => {
    const text = `${PREPARE_PER_CONNECTION}select v from ${table} where id = $1`;
    expect((await client.query(text, [1])).rows).toEqual([{ v: 10 }]);
    await client.query(`alter table ${table} alter column v type text`);
    await expect(client.query(text, [1])).rejects.toMatchObject({ code: '0A000' });
    expect((await client.query(text, [1])).rows).toEqual([{ v: '10' }]);
  });

  it('unmarked texts stay unnamed', async () => {
    const before = (await named()).length;
    await client.query(`select v from ${table} where id = $1`, [2]);
    expect((await named()).length).toBe(before);
  });
});

// Registered texts (the hot queries) run as a lean named execution: the same results node-postgres'
// Query gives, and no Describe once the text's result shape is known.
describe.skipIf(process.env.TEST_DB !== 'postgres' || !url)('registered texts: named executions (PostgreSQL)', () => {
  const table = `pgexec_${randomBytes(6).toString('hex')}`;
  let pool: Pool;

  beforeAll(async () => {
    pool = openPostgresPool(url!, { queryTimeoutMs: 5_000, poolTimeoutMs: 5_000 });
    await pool.query(`create table ${table} (id int primary key, n int8, s text, b boolean)`);
    await pool.query(`insert into ${table} values (1, 10, null, true), (2, 20, 'two', false)`);
  });

  afterAll(async () => {
    await pool.query(`drop table if exists ${table}`);
    await pool.end();
  });

  const describes = (client: PoolClient) => {
    const connection = (client as unknown as { connection: { describe(...args: unknown[]): void } }).connection;
    const original = connection.describe.bind(connection);
    const counter = { count: 0 };
    connection.describe = (...args) => {
      counter.count++;
      original(...args);
    };
    return counter;
  };

  it('rows, types and nulls as node-postgres gives them; the shape is described once, on any connection', async () => {
    const text = `select id, n, s, b from ${table} where id = $1 or id = $2 order by id`;
    prepareOnPostgres(text);
    const first = await pool.connect();
    const second = await pool.connect();
    try {
      const plain = (await first.query(text.replace('where', 'where true and'), [1, 2])).rows; // unregistered: pg's own Query
      const counted = [describes(first), describes(second)];
      const a = await first.query(text, [1, 2]);
      expect(a.rows).toEqual(plain);
      expect(a.rows).toEqual([
        { id: 1, n: 10, s: null, b: true },
        { id: 2, n: 20, s: 'two', b: false },
      ]);
      expect(a.rowCount).toBe(2);
      expect(a.command).toBe('SELECT');
      expect((await first.query(text, [2, 0])).rows).toEqual([{ id: 2, n: 20, s: 'two', b: false }]);
      expect((await second.query(text, [1, 0])).rows).toEqual([{ id: 1, n: 10, s: null, b: true }]); // parsed on this connection, not described
      expect((await second.query(text, [3, 4])).rows).toEqual([]);
      expect(counted.map((c) => c.count)).toEqual([1, 0]);
      const prepared = await second.query(`select count(*)::int as n from pg_prepared_statements where statement = $1`, [text]);
      expect(prepared.rows).toEqual([{ n: 1 }]);
    } finally {
      first.release();
      second.release();
    }
  });

  it('a write answers its command and row count; an error rejects with its code and the connection goes on', async () => {
    const update = `update ${table} set n = n + 1 where id = $1`;
    const insert = `insert into ${table} (id, n) values ($1, $2)`;
    prepareOnPostgres(update);
    prepareOnPostgres(insert);
    const client = await pool.connect();
    try {
      expect(await client.query(update, [1])).toMatchObject({ command: 'UPDATE', rowCount: 1, rows: [] });
      expect(await client.query(update, [9])).toMatchObject({ command: 'UPDATE', rowCount: 0 });
      expect(await client.query(insert, [3, 30])).toMatchObject({ command: 'INSERT', rowCount: 1 });
      await expect(client.query(insert, [3, 31])).rejects.toMatchObject({ code: '23505' });
      await expect(client.query(insert, [4, 'not a number'])).rejects.toMatchObject({ code: '22P02' });
      expect((await client.query(`select n from ${table} where id = 1 or id = 3 order by id`)).rows).toEqual([{ n: 11 }, { n: 30 }]);
    } finally {
      client.release();
    }
  });
});
