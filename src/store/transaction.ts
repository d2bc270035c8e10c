import type { Db } from './db.js';

/** Runs `work` in a transaction, joining the caller's when `db` already is one. */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
