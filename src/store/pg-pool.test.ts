import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool, PoolClient } from 'pg';
import { openPostgresPool, PREPARE_PER_CONNECTION, STATEMENTS_PER_CONNECTION } from './pg-pool.js';

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
