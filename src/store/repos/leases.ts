import type { Expression, ExpressionBuilder, Selectable, SqlBool, UpdateQueryBuilder, UpdateResult } from 'kysely';
import type { Db } from '../db.js';
import { rowLimit } from '../limit.js';
import type { Database } from '../types.js';

// Queues whose rows are leased to one node per attempt (the mail outbox, the webhook delivery queue):
// `lease_holder` names the node, `lease_until` when the lease runs out if the node never answers.

export type LeasedTable = 'mail_outbox' | 'webhook_deliveries';

/** A leased queue's table, and when one of its rows is due at `now` (leases aside: see dueAndFree). */
export interface QueueTable<T extends LeasedTable> {
  table: T;
  due: (eb: ExpressionBuilder<Database, T>, now: string) => Expression<SqlBool>;
}

/** A claim of due rows: leased to `holder` until `leaseUntil`. */
export interface LeaseClaim {
  holder: string;
  now: string;
  leaseUntil: string;
  limit: number;
  skipLocked: boolean;
}

/** A row no node holds: never leased, or its lease ran out by `now`. */
function leaseFree(eb: ExpressionBuilder<Database, LeasedTable>, now: string) {
  return eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]);
}

/** The rows of the queue to attempt at `now`: due, and free. */
// (Kysely types a statement over a union of tables as one over all of them: `due` is typed against its own
// table, so a column of the other queue's table does not compile there; the cast gives it the builder.)
const dueAndFree =
  <T extends LeasedTable>(queue: QueueTable<T>, now: string) =>
  (eb: ExpressionBuilder<Database, LeasedTable>) =>
    eb.and([queue.due(eb as unknown as ExpressionBuilder<Database, T>, now), leaseFree(eb, now)]);

/**
 * Whether any row is due: a read, so an idle worker's poll takes no write lock (on SQLite a claim that waits
 * for another process's write lock would stop the node's event loop for the busy timeout).
 */
export async function anyDue<T extends LeasedTable>(db: Db, queue: QueueTable<T>, now: string): Promise<boolean> {
  const row = await db.selectFrom(queue.table as LeasedTable).select('id').where(dueAndFree(queue, now)).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Leases up to `limit` due rows to `holder` until `leaseUntil`, soonest due first; each row goes to one node
 * only. The UPDATE re-checks that the row is due and free, so two nodes racing for a row cannot both take it on
 * either database; `skipLocked` (PostgreSQL) makes them pass over each other's rows instead of waiting. On
 * SQLite the caller runs this in a write transaction (BEGIN IMMEDIATE), which serializes claims.
 */
export async function claimDue<T extends LeasedTable>(db: Db, queue: QueueTable<T>, options: LeaseClaim): Promise<Selectable<Database[T]>[]> {
  const due = dueAndFree(queue, options.now);
  let candidates = db
    .selectFrom(queue.table as LeasedTable)
    .select('id')
    .where(due)
    .orderBy('next_attempt_at')
    .limit(rowLimit(options.limit));
  if (options.skipLocked) candidates = candidates.forUpdate().skipLocked();
  const rows = await db
    .updateTable(queue.table as LeasedTable)
    .set({ lease_holder: options.holder, lease_until: options.leaseUntil })
    .where('id', 'in', candidates)
    .where(due)
    .returningAll()
    .execute();
  return rows as Selectable<Database[T]>[];
}

/**
 * The UPDATE that gives back the lease `holder` still holds on row `id` (a lost lease: nothing changes); the
 * caller adds what the attempt changed with `.set`.
 */
export function releaseLease<T extends LeasedTable>(db: Db, table: T, id: string, holder: string): UpdateQueryBuilder<Database, T, T, UpdateResult> {
  const update = db
    .updateTable(table as LeasedTable)
    .set({ lease_holder: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_holder', '=', holder);
  // Kysely types an UPDATE of a union of tables as one of all of them: the cast names the one table it is
  // (every column written or compared above is a column of each).
  return update as unknown as UpdateQueryBuilder<Database, T, T, UpdateResult>;
}
