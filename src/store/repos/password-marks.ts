import { sql } from 'kysely';
import { SECOND_FACTOR_MARK } from '../../crypto/passwords.js';
import type { Db } from '../db.js';

// The second-factor mark on a stored password hash (crypto/passwords.ts, docs/upgrading.md): written in the
// transaction that gives the user a verified factor, removed in the one that takes the last away, and kept
// by every password write while a verified factor remains. Only release 02c1d09 reads it (as a hash that
// never matches); this release verifies the hash without it.

const N = SECOND_FACTOR_MARK.length;

/** Marks the user's password hash (when there is one and it is not marked yet). */
export async function markPasswordForSecondFactor(db: Db, appId: string, userId: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: sql<string>`${sql.lit(SECOND_FACTOR_MARK)} || password_hash` })
    .where('app_id', '=', appId)
    .where('id', '=', userId)
    .where('password_hash', 'is not', null)
    .where(sql<string>`substr(password_hash, 1, ${sql.lit(N)})`, '<>', sql.lit(SECOND_FACTOR_MARK))
    .execute();
}

/** Takes the mark off once the user has no verified factor left. */
export async function unmarkPasswordWithoutSecondFactor(db: Db, appId: string, userId: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: sql<string>`substr(password_hash, ${sql.lit(N + 1)})` })
    .where('app_id', '=', appId)
    .where('id', '=', userId)
    .where(sql<string>`substr(password_hash, 1, ${sql.lit(N)})`, '=', sql.lit(SECOND_FACTOR_MARK))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('mfa_factors').select(sql.lit(1).as('one')).where('mfa_factors.app_id', '=', appId).where('mfa_factors.user_id', '=', userId).where('mfa_factors.status', '=', 'verified'))))
    .execute();
}

/**
 * A new password hash as the users row stores it: marked while the user has a verified factor (an SQL
 * expression for the row's own UPDATE, so a password change or a re-hash keeps the mark).
 */
export function storedPasswordHash(appId: string, userId: string, passwordHash: string) {
  return sql<string>`case when exists (select 1 from mfa_factors where mfa_factors.app_id = ${appId} and mfa_factors.user_id = ${userId} and mfa_factors.status = 'verified') then ${sql.lit(SECOND_FACTOR_MARK)} || cast(${passwordHash} as text) else cast(${passwordHash} as text) end`;
}
