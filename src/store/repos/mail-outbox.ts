import type { Db } from '../db.js';
import { rowLimit } from '../limit.js';
import type { MailOutboxRow } from '../types.js';

/** Queues an email; call it inside the transaction that writes what the email announces. */
export async function insertOutboxMail(db: Db, row: MailOutboxRow): Promise<void> {
  await db.insertInto('mail_outbox').values(row).execute();
}

/** Whether any email is due and free: a read, so an idle worker's poll takes no write lock (see anyDueDelivery). */
export async function anyDueMail(db: Db, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('mail_outbox')
    .select('id')
    .where('gave_up_at', 'is', null)
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Leases up to `limit` due emails to `holder` until `leaseUntil`; each row goes to one node only. The
 * UPDATE re-checks the lease, so two nodes racing for a row cannot both take it on either database;
 * `skipLocked` (PostgreSQL) makes them pass over each other's rows instead of waiting. On SQLite the
 * caller runs this in a write transaction (BEGIN IMMEDIATE), which serializes claims.
 */
export async function claimDueMail(
  db: Db,
  options: { holder: string; now: string; leaseUntil: string; limit: number; skipLocked: boolean },
): Promise<MailOutboxRow[]> {
  let due = db
    .selectFrom('mail_outbox')
    .select('id')
    .where('gave_up_at', 'is', null)
    .where('next_attempt_at', '<=', options.now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', options.now)]))
    .orderBy('next_attempt_at')
    .limit(rowLimit(options.limit));
  if (options.skipLocked) due = due.forUpdate().skipLocked();
  return db
    .updateTable('mail_outbox')
    .set({ lease_holder: options.holder, lease_until: options.leaseUntil })
    .where('id', 'in', due)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', options.now)]))
    .returningAll()
    .execute();
}

/** Removes a sent email (only while `holder` still holds it). */
export async function deleteSentMail(db: Db, id: string, holder: string): Promise<void> {
  await db.deleteFrom('mail_outbox').where('id', '=', id).where('lease_holder', '=', holder).execute();
}

/** Records a failed attempt and when to try again; releases the lease. */
export async function rescheduleMail(db: Db, id: string, holder: string, change: { attempts: number; nextAttemptAt: string; lastError: string }): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ attempts: change.attempts, next_attempt_at: change.nextAttemptAt, last_error: change.lastError, lease_holder: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_holder', '=', holder)
    .execute();
}

/** Gives the lease back without counting an attempt (a send cut by shutdown); due again at once. */
export async function releaseMail(db: Db, id: string, holder: string): Promise<void> {
  await db.updateTable('mail_outbox').set({ lease_holder: null, lease_until: null }).where('id', '=', id).where('lease_holder', '=', holder).execute();
}

/** Marks an email given up on; the row stays (sealed) for the operator to inspect, never claimed again, until the clean-up deletes it (GIVEN_UP_MAIL_RETENTION_DAYS). */
export async function markMailGivenUp(db: Db, id: string, holder: string, change: { attempts: number; now: string; lastError: string }): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ attempts: change.attempts, gave_up_at: change.now, last_error: change.lastError, lease_holder: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_holder', '=', holder)
    .execute();
}

/** How many emails wait to be sent (not given up). */
export async function countPendingMail(db: Db): Promise<number> {
  const row = await db.selectFrom('mail_outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('gave_up_at', 'is', null).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Deletes the app's queued mail (pending or given up) to any of these recipients (recipient_hash); answers how many. */
export async function deleteMailTo(db: Db, appId: string, recipientHashes: string[]): Promise<number> {
  if (recipientHashes.length === 0) return 0;
  const result = await db.deleteFrom('mail_outbox').where('app_id', '=', appId).where('recipient_hash', 'in', recipientHashes).executeTakeFirst();
  return Number(result.numDeletedRows);
}
