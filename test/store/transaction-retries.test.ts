import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionFailure } from '../../src/store/dialect.js';
import { openStore, type Store } from '../../src/store/db.js';
import { inTransaction, setRetryPolicy, type Contention, type ContentionOutcome } from '../../src/store/transaction.js';
import { createPostgresDatabase } from '../helpers/db.js';

// A deadlock or a serialization failure PostgreSQL ended a transaction for is no bug: inTransaction runs the
// whole transaction again (store/transaction.ts), up to DB_TRANSACTION_RETRIES times. Real transactions on
// real connections, meeting in opposite orders behind a barrier; the HTTP side is test/contract/transaction-retries.test.ts.

let database: { url: string; drop(): Promise<void> };
let store: Store;
let admin: pg.Client;
const seen: Array<[Contention, ContentionOutcome]> = [];

beforeAll(async () => {
  database = await createPostgresDatabase();
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query('CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL)');
  store = openStore({ kind: 'postgres', url: database.url }, { queryTimeoutMs: 10_000, poolTimeoutMs: 5_000, transactionRetries: { retries: 3, contended: (c, o) => seen.push([c, o]) } });
});
afterAll(async () => {
  await store?.close();
  await admin?.end();
  await database?.drop();
});

const reset = () => admin.query('DELETE FROM t; INSERT INTO t VALUES (1, 0), (2, 0)');
const counts = async () => (await admin.query('SELECT id, n FROM t ORDER BY id')).rows.map((r) => r.n as number);

/** Resolves once `parties` callers have arrived. */
function barrier(parties: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return () => (++arrived >= parties && open(), opened);
}

/** Two transactions, each adding 1 to row `first` then row `second`, in opposite orders: a real deadlock. */
function deadlockingPair() {
  const bothHoldOne = barrier(2);
  const runs = { a: 0, b: 0 };
  const bump = (name: 'a' | 'b', first: number, second: number) =>
    inTransaction(store.db, async (trx) => {
      runs[name]++;
      // Only a's backend looks for the deadlock in time, so a is the one PostgreSQL ends: two backends that
      // begin to wait at once may otherwise both find the cycle before either lets go, and both be ended.
      if (name === 'b') await sql`SET LOCAL deadlock_timeout = '20s'`.execute(trx);
      await sql`UPDATE t SET n = n + 1 WHERE id = ${first}`.execute(trx);
      await bothHoldOne();
      await sql`UPDATE t SET n = n + 1 WHERE id = ${second}`.execute(trx);
      return name;
    });
  return { runs, results: Promise.allSettled([bump('a', 1, 2), bump('b', 2, 1)]) };
}

describe('55 transactions PostgreSQL ended for contention run again', () => {
  it('a deadlock between two transactions: the one PostgreSQL ended runs again from its start and commits; both writes stand once', async () => {
    await reset();
    seen.length = 0;
    const { runs, results } = deadlockingPair();
    expect((await results).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(runs).toEqual({ a: 2, b: 1 }); // a's first run was rolled back whole, then it ran once more
    expect(await counts()).toEqual([2, 2]);
    expect(seen).toEqual([['deadlock', 'retried']]);
  });

  it('a serialization failure (a serializable transaction that lost) runs again and commits', async () => {
    await reset();
    seen.length = 0;
    const bothRead = barrier(2);
    let runs = 0;
    // Each reads the sum, then writes the row the other did not: serializable, one of them must lose.
    const write = (id: number) =>
      inTransaction(store.db, async (trx) => {
        runs++;
        await sql`SET TRANSACTION ISOLATION LEVEL SERIALIZABLE`.execute(trx);
        const { rows } = await sql<{ total: number }>`SELECT sum(n)::int AS total FROM t`.execute(trx);
        await bothRead();
        await sql`UPDATE t SET n = ${rows[0]!.total + 1} WHERE id = ${id}`.execute(trx);
      });
    expect((await Promise.allSettled([write(1), write(2)])).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    // At least the loser ran again (a re-run that began before the winner committed may lose once more).
    expect(runs).toBeGreaterThanOrEqual(3);
    expect((await counts()).sort()).toEqual([1, 2]); // the last run read the winner's write
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(new Set(seen.map((s) => s.join(' ')))).toEqual(new Set(['serialization retried']));
  });

  it('with retries set to 0 the victim fails with the deadlock, which the error plugin answers 503 (database_unavailable); its writes are rolled back', async () => {
    await reset();
    seen.length = 0;
    setRetryPolicy(store.db, { retries: 0, contended: (c, o) => seen.push([c, o]) });
    try {
      const { runs, results } = deadlockingPair();
      const settled = await results;
      const failed = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(failed).toHaveLength(1);
      expect((failed[0]!.reason as { code?: string }).code).toBe('40P01');
      expect(connectionFailure(failed[0]!.reason)).toBe('deadlock');
      expect(runs).toEqual({ a: 1, b: 1 });
      expect(settled[1]!.status).toBe('fulfilled');
      expect(await counts()).toEqual([1, 1]); // the winner's two writes, none of the victim's
      expect(seen).toEqual([['deadlock', 'gave_up']]);
    } finally {
      setRetryPolicy(store.db, { retries: 3, contended: (c, o) => seen.push([c, o]) });
    }
  });

  it('an error that is not contention is not retried, and a joined transaction is retried only by its outermost one', async () => {
    seen.length = 0;
    let runs = 0;
    const refused = await inTransaction(store.db, async () => {
      runs++;
      throw Object.assign(new Error('duplicate key'), { code: '23505' });
    }).catch((e: Error) => e);
    expect(refused.message).toBe('duplicate key');
    expect(runs).toBe(1);

    let outer = 0;
    let inner = 0;
    let thrown = 0;
    await inTransaction(store.db, async (trx) => {
      outer++;
      await inTransaction(trx, async () => {
        inner++;
        if (thrown++ === 0) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      });
    });
    expect([outer, inner]).toEqual([2, 2]);
    expect(seen).toEqual([['deadlock', 'retried']]);
  });
});
