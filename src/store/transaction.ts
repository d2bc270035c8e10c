import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from './types.js';

// db.ts (openStore) sets the policy, so this names the store's type itself rather than import db.ts.
type Db = Kysely<Database>;

/** The contention PostgreSQL ends a transaction for, after which the same transaction may simply run again. */
export type Contention = 'deadlock' | 'serialization';
/** How a transaction that met contention ended: `retried` (a re-run committed), `gave_up` (its retries spent), `failed` (a re-run failed otherwise). */
export type ContentionOutcome = 'retried' | 'gave_up' | 'failed';

export interface RetryPolicy {
  /** Re-runs of a transaction PostgreSQL ended for a deadlock or a serialization failure (DB_TRANSACTION_RETRIES); 0 for none. */
  retries: number;
  /** Told once per transaction that met contention, how it ended (gatehouse_db_transactions_contended_total). */
  contended?: (cause: Contention, outcome: ContentionOutcome) => void;
}

export const DEFAULT_TRANSACTION_RETRIES = 3;
const policies = new WeakMap<object, RetryPolicy>();

/** Sets the retry policy of every transaction on `db`'s store (openStore does, from DB_TRANSACTION_RETRIES). */
export function setRetryPolicy(db: Db, policy: RetryPolicy): void {
  policies.set(db.getExecutor().adapter, policy);
}

const CONTENTION: Record<string, Contention> = { '40P01': 'deadlock', '40001': 'serialization' };

/** The contention behind `error` (PostgreSQL's deadlock_detected or serialization_failure), or undefined. */
export function contentionOf(error: unknown): Contention | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? CONTENTION[code] : undefined;
}

/** Full jitter over 10, 20, 40 ... ms, at most 250: two transactions that deadlocked do not meet again in step. */
const backoffMs = (attempt: number) => Math.random() * Math.min(250, 10 * 2 ** attempt);

/**
 * Runs `work` in a transaction, joining the caller's when `db` already is one. When PostgreSQL ends the
 * transaction for a deadlock (40P01) or a serialization failure (40001), it has rolled everything back, and
 * the whole transaction runs again from its start, up to the store's retries, after a jittered pause; then
 * the error goes up and is answered 503 with Retry-After (http/plugins/errors.ts). A joined transaction
 * is never retried here: its outermost one is.
 *
 * So `work` must be safe to run again: it writes only through `trx` and changes nothing outside it. Mail
 * and webhooks are queued in the transaction (the outbox), never sent from it; a variable the work sets
 * for after the commit is set afresh on each run.
 */
export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  const policy = policies.get(db.getExecutor().adapter) ?? { retries: DEFAULT_TRANSACTION_RETRIES };
  let met: Contention | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      const value = await db.transaction().execute(work);
      if (met) policy.contended?.(met, 'retried');
      return value;
    } catch (error) {
      const cause = contentionOf(error);
      if (!cause) {
        if (met) policy.contended?.(met, 'failed');
        throw error;
      }
      met = cause;
      if (attempt >= policy.retries) {
        policy.contended?.(cause, 'gave_up');
        throw error;
      }
      await sleep(backoffMs(attempt));
    }
  }
}
