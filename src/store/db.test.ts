import { CompiledQuery, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openStore, sqliteTransaction } from './db.js';

const insert = (v: string) => CompiledQuery.raw('insert into t (v) values (?)', [v]);
const values = async (store: ReturnType<typeof openStore>) => (await sql<{ v: string }>`select v from t order by v`.execute(store.db)).rows.map((row) => row.v);

async function scratchStore() {
  const store = openStore({ kind: 'sqlite', path: ':memory:' });
  await sql`create table t (v text primary key)`.execute(store.db);
  return store;
}

describe('sqliteTransaction: one synchronous transaction on the connection (issue 14)', () => {
  it('waits while a Kysely transaction holds the connection, then commits after it', async () => {
    const store = await scratchStore();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const kysely = store.db.transaction().execute(async (trx) => {
      await sql`insert into t (v) values ('kysely')`.execute(trx);
      await held; // the connection stays held across an await, inside an open transaction
      order.push('kysely');
    });
    await new Promise((resolve) => setImmediate(resolve));
    const synchronous = sqliteTransaction(store.db, (run) => {
      order.push('synchronous');
      run(insert('synchronous'));
      return (run(CompiledQuery.raw('select count(*) as n from t')) as { n: number }[])[0].n;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]); // it has not run inside the other transaction
    release();
    await kysely;
    expect(await synchronous).toBe(2); // it saw the other transaction's committed row
    expect(order).toEqual(['kysely', 'synchronous']);
    expect(await values(store)).toEqual(['kysely', 'synchronous']);
    await store.close();
  });

  it('rolls back everything when the work throws, and leaves the connection usable', async () => {
    const store = await scratchStore();
    await expect(
      sqliteTransaction(store.db, (run) => {
        run(insert('a'));
        run(insert('a')); // primary key violation
      }),
    ).rejects.toThrow(/UNIQUE/);
    expect(await values(store)).toEqual([]);
    await sqliteTransaction(store.db, (run) => run(insert('b')));
    expect(await values(store)).toEqual(['b']);
    await store.close();
  });

  it('joins the caller’s transaction instead of opening one', async () => {
    const store = await scratchStore();
    await expect(
      store.db.transaction().execute(async (trx) => {
        await sqliteTransaction(trx, (run) => run(insert('inner')));
        throw new Error('the caller rolls back');
      }),
    ).rejects.toThrow('the caller rolls back');
    expect(await values(store)).toEqual([]);
    await store.close();
  });
});
