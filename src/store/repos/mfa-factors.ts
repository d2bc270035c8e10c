import type { Db } from '../db.js';
import type { Database, MfaFactorRow, MfaFactorsTable } from '../types.js';
import { sql, type ExpressionBuilder, type Insertable } from 'kysely';
import { wroteOne } from './conditional-write.js';

// A user's second factors (migration 0024): TOTP authenticators and passkeys. Every function is scoped
// by app and user; the writes that decide (confirming, using a step) are conditional UPDATEs.

/** Wrong codes an unverified TOTP factor takes before it is dead (enroll again). */
export const ENROLL_ATTEMPTS = 5;

type FactorsEb = ExpressionBuilder<Database, 'mfa_factors'>;

/** An unconfirmed TOTP enrollment still open: fewer than ENROLL_ATTEMPTS wrong codes so far. */
const openEnrollment = (eb: FactorsEb) => eb.and([eb('status', '=', 'unverified'), eb('attempts', '<', ENROLL_ATTEMPTS)]);

/** A verified factor not locked at `now` by wrong sign-in codes (a lock ends at its `locked_until`). */
const usableAt = (now: string) => (eb: FactorsEb) => eb.and([eb('status', '=', 'verified'), eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)])]);

/** The write of the app's factor `factorId`; the caller sets, adds its conditions and what it returns. */
function updateFactor(db: Db, appId: string, factorId: string) {
  return db.updateTable('mfa_factors').where('id', '=', factorId).where('app_id', '=', appId);
}

export async function insertFactor(db: Db, row: Insertable<MfaFactorsTable>): Promise<void> {
  await db.insertInto('mfa_factors').values(row).execute();
}

/** The user's factor, or undefined (another user's or app's factor is not found either). */
export async function findFactor(db: Db, appId: string, userId: string, factorId: string): Promise<MfaFactorRow | undefined> {
  return db.selectFrom('mfa_factors').selectAll().where('id', '=', factorId).where('app_id', '=', appId).where('user_id', '=', userId).executeTakeFirst();
}

/** The user's factors, oldest first; only verified ones with `verifiedOnly`. */
export async function listFactors(db: Db, appId: string, userId: string, options: { verifiedOnly?: boolean } = {}): Promise<MfaFactorRow[]> {
  let query = db.selectFrom('mfa_factors').selectAll().where('app_id', '=', appId).where('user_id', '=', userId);
  if (options.verifiedOnly) query = query.where('status', '=', 'verified');
  return query.orderBy('created_at').orderBy('id').execute();
}

/** Drops the user's unconfirmed TOTP enrollments (one pending at a time: a new one replaces them). */
export async function deleteUnverifiedTotp(db: Db, appId: string, userId: string): Promise<void> {
  await db.deleteFrom('mfa_factors').where('app_id', '=', appId).where('user_id', '=', userId).where('type', '=', 'totp').where('status', '=', 'unverified').execute();
}

/** Counts a wrong code against an unconfirmed factor, in the write that checks the limit: false when it is already dead or gone. */
export async function countEnrollAttempt(db: Db, appId: string, factorId: string, now: string): Promise<boolean> {
  return wroteOne(
    updateFactor(db, appId, factorId)
      .set((eb) => ({ attempts: eb('attempts', '+', 1), updated_at: now }))
      .where(openEnrollment)
      .returning('attempts'),
  );
}

/**
 * Confirms an unverified TOTP factor with the step its first code was for, if it was enrolled after
 * `startedAfter`; false when another request did, or it is dead (wrong codes, expired, dropped).
 */
export async function confirmTotpFactor(db: Db, appId: string, factorId: string, step: number, now: string, startedAfter: string): Promise<boolean> {
  return wroteOne(
    updateFactor(db, appId, factorId)
      .set({ status: 'verified', last_step: step, updated_at: now, last_used_at: now })
      .where(openEnrollment)
      .where('created_at', '>', startedAfter)
      .returning('id'),
  );
}

/**
 * Uses a TOTP step: only a step later than the last one used is accepted, so a code (or any code of an
 * earlier step) is never accepted twice, on any node; and only while the factor is not locked (a lock
 * set by a concurrent wrong code wins). The right code ends the run of wrong ones. False when the step is
 * not newer or the factor is locked.
 */
export async function advanceTotpStep(db: Db, appId: string, factorId: string, step: number, now: string): Promise<boolean> {
  return wroteOne(
    updateFactor(db, appId, factorId)
      .set({ last_step: step, last_used_at: now, failed_codes: 0, locked_until: null })
      .where(usableAt(now))
      .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
      .returning('id'),
  );
}

/**
 * Counts a wrong sign-in code against a verified TOTP factor that is not locked, and sets its lock in the
 * same conditional UPDATE: `schedule.untils[i]` once the count reaches `schedule.from + i` (the last for
 * any count beyond). Concurrent wrong codes on any node count one each until the lock, then none: answers
 * the new count, or undefined when the factor is locked (or gone).
 */
export async function countFailedCode(db: Db, appId: string, factorId: string, now: string, schedule: { from: number; untils: string[] }): Promise<number | undefined> {
  const next = sql`${sql.ref('failed_codes')} + 1`;
  const steps = schedule.untils.slice(0, -1).map((until, i) => sql`when ${next} = ${schedule.from + i} then ${until}`);
  const lock = sql<string | null>`case when ${next} < ${schedule.from} then null ${sql.join(steps, sql` `)} else ${schedule.untils.at(-1)!} end`;
  const row = await updateFactor(db, appId, factorId)
    .set((eb) => ({ failed_codes: eb('failed_codes', '+', 1), locked_until: lock }))
    .where('type', '=', 'totp')
    .where(usableAt(now))
    .returning('failed_codes')
    .executeTakeFirst();
  return row?.failed_codes;
}

export async function renameFactor(db: Db, appId: string, userId: string, factorId: string, name: string | null, now: string): Promise<boolean> {
  return wroteOne(updateFactor(db, appId, factorId).set({ friendly_name: name, updated_at: now }).where('user_id', '=', userId).returning('id'));
}

/** Removes one factor; false when it was not the user's (or already gone). */
export async function deleteFactor(db: Db, appId: string, userId: string, factorId: string): Promise<boolean> {
  const result = await db.deleteFrom('mfa_factors').where('id', '=', factorId).where('app_id', '=', appId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Removes every factor of the user; answers how many there were. */
export async function deleteUserFactors(db: Db, appId: string, userId: string): Promise<number> {
  const result = await db.deleteFrom('mfa_factors').where('app_id', '=', appId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Whether the user still has a verified factor. */
export async function hasVerifiedFactor(db: Db, appId: string, userId: string): Promise<boolean> {
  const row = await db.selectFrom('mfa_factors').select('id').where('app_id', '=', appId).where('user_id', '=', userId).where('status', '=', 'verified').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The app's verified passkey with this credential id (base64url), or undefined. */
export async function findPasskeyByCredential(db: Db, appId: string, credentialId: string): Promise<MfaFactorRow | undefined> {
  return db
    .selectFrom('mfa_factors')
    .selectAll()
    .where('app_id', '=', appId)
    .where('credential_id', '=', credentialId)
    .where('type', '=', 'webauthn')
    .where('status', '=', 'verified')
    .executeTakeFirst();
}

/** Records a passkey's use: its signature counter and when. */
export async function recordPasskeyUse(db: Db, appId: string, factorId: string, counter: number, now: string): Promise<void> {
  await updateFactor(db, appId, factorId).set({ sign_count: counter, last_used_at: now }).execute();
}
