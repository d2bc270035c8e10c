import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db.js';
import type { Database, MailOutboxRow } from '../types.js';
import { anyDue, claimDue, releaseLease, type LeaseClaim, type QueueTable } from './leases.js';

/** Queues an email; call it inside the transaction that writes what the email announces. */
export async function insertOutboxMail(db: Db, row: MailOutboxRow): Promise<void> {
  await db.insertInto('mail_outbox').values(row).execute();
}

/** The outbox as a leased queue: an email is due while not given up, once its next attempt's time has come. */
const OUTBOX: QueueTable<'mail_outbox'> = {
  table: 'mail_outbox',
  due: (eb: ExpressionBuilder<Database, 'mail_outbox'>, now) => eb.and([eb('gave_up_at', 'is', null), eb('next_attempt_at', '<=', now)]),
};

/** Whether any email is due and free: a read, so an idle worker's poll takes no write lock (anyDue). */
export const anyDueMail = (db: Db, now: string): Promise<boolean> => anyDue(db, OUTBOX, now);

/** Leases up to `limit` due emails to `holder` until `leaseUntil`; each goes to one node only (claimDue). */
export const claimDueMail = (db: Db, options: LeaseClaim): Promise<MailOutboxRow[]> => claimDue(db, OUTBOX, options);

/** Removes a sent email (only while `holder` still holds it). */
export async function deleteSentMail(db: Db, id: string, holder: string): Promise<void> {
  await db.deleteFrom('mail_outbox').where('id', '=', id).where('lease_holder', '=', holder).execute();
}

/** Records a failed attempt and when to try again; releases the lease. */
export async function rescheduleMail(db: Db, id: string, holder: string, change: { attempts: number; nextAttemptAt: string; lastError: string }): Promise<void> {
  await releaseLease(db, 'mail_outbox', id, holder).set({ attempts: change.attempts, next_attempt_at: change.nextAttemptAt, last_error: change.lastError }).execute();
}

/** Gives the lease back without counting an attempt (a send cut by shutdown); due again at once. */
export async function releaseMail(db: Db, id: string, holder: string): Promise<void> {
  await releaseLease(db, 'mail_outbox', id, holder).execute();
}

/** Marks an email given up on; the row stays (sealed) for the operator to inspect, never claimed again, until the clean-up deletes it (GIVEN_UP_MAIL_RETENTION_DAYS). */
export async function markMailGivenUp(db: Db, id: string, holder: string, change: { attempts: number; now: string; lastError: string }): Promise<void> {
  await releaseLease(db, 'mail_outbox', id, holder).set({ attempts: change.attempts, gave_up_at: change.now, last_error: change.lastError }).execute();
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
