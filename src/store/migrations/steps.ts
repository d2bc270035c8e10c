import { PostgresAdapter, sql, type Kysely } from 'kysely';

// What a migration of a serving database uses so that it does not stop traffic (issue 55; docs/upgrading.md,
// "Migrations that do not stop traffic"):
// - createIndexConcurrently: on PostgreSQL, CREATE INDEX CONCURRENTLY, which takes no lock that blocks writes.
//   It cannot run inside a transaction, so a migration that uses it exports `transaction = false` and the
//   runner (index.ts) gives it a connection outside one. A new database is made in one transaction: there the
//   index is built the plain way (the tables are empty, nobody is served yet). Idempotent, so a migration cut
//   halfway runs again from its start: an index a failed CONCURRENTLY build left invalid is dropped and rebuilt.
// - backfillInBatches: a data change after the schema change, in bounded batches each committed on its own,
//   resumable because each batch picks only rows that still need it.

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** Creates `name` on `table (columns)` unless it exists: CONCURRENTLY on PostgreSQL outside a transaction. */
export async function createIndexConcurrently(db: Kysely<any>, name: string, table: string, columns: string[]): Promise<void> {
  const cols = sql.join(columns.map((c) => sql.ref(c)));
  if (!isPostgres(db) || db.isTransaction) {
    await sql`create index if not exists ${sql.id(name)} on ${sql.table(table)} (${cols})`.execute(db);
    return;
  }
  // A CONCURRENTLY build that failed (a crash, a cancelled statement) leaves the index INVALID: unused by
  // queries but kept by IF NOT EXISTS. Drop it first, without a lock on the table either.
  const { rows } = await sql<{ valid: boolean }>`select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = ${name} and pg_table_is_visible(c.oid)`.execute(db);
  if (rows[0] && !rows[0].valid) await sql`drop index concurrently if exists ${sql.id(name)}`.execute(db);
  await sql`create index concurrently if not exists ${sql.id(name)} on ${sql.table(table)} (${cols})`.execute(db);
}

export interface BackfillOptions {
  /** Rows per batch: each batch is one short statement or transaction (default 1000). */
  size?: number;
  /** Rest after each batch, as a share of the time it took (default 1: the backfill takes at most half the database's time). */
  restRatio?: number;
}

/**
 * Runs `batch(limit)` until a batch changes fewer than `limit` rows; answers the rows changed. `batch` changes
 * at most `limit` rows that still need it and commits them (one UPDATE ... WHERE key IN (SELECT ... LIMIT),
 * or a transaction of its own), so a backfill cut at any point resumes where it stopped when run again.
 */
export async function backfillInBatches(batch: (limit: number) => Promise<number>, options: BackfillOptions = {}): Promise<number> {
  const size = options.size ?? 1000;
  const restRatio = options.restRatio ?? 1;
  let total = 0;
  for (;;) {
    const started = performance.now();
    const changed = await batch(size);
    total += changed;
    if (changed < size) return total;
    const took = performance.now() - started;
    if (restRatio > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, took * restRatio)));
  }
}
