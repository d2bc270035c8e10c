import type { ExpressionBuilder } from 'kysely';
import { newUuid } from '../../crypto/ids.js';
import type { Db } from '../db.js';
import type { Database } from '../types.js';
import { wroteOne } from './conditional-write.js';

// Recovery codes (migration 0024): stored as hashes, each used by one conditional UPDATE.

type CodesEb = ExpressionBuilder<Database, 'mfa_recovery_codes'>;

/** The user's codes in the app: both keys, in every statement. */
const userCodes = (appId: string, userId: string) => (eb: CodesEb) => eb.and([eb('app_id', '=', appId), eb('user_id', '=', userId)]);

/** Not used yet: the condition that lets one use of a code win. */
const unused = (eb: CodesEb) => eb('used_at', 'is', null);

/** The user's codes become `hashes` (the earlier set dies). Run in the caller's transaction. */
export async function replaceRecoveryCodes(db: Db, appId: string, userId: string, hashes: string[], now: string): Promise<void> {
  await deleteUserRecoveryCodes(db, appId, userId);
  await db
    .insertInto('mfa_recovery_codes')
    .values(hashes.map((code_hash) => ({ id: newUuid(), app_id: appId, user_id: userId, code_hash, created_at: now, used_at: null })))
    .execute();
}

/** Uses the code: one caller wins, on any node; false when it is unknown or was used. */
export async function consumeRecoveryCode(db: Db, appId: string, userId: string, codeHash: string, now: string): Promise<boolean> {
  return wroteOne(db.updateTable('mfa_recovery_codes').set({ used_at: now }).where(userCodes(appId, userId)).where('code_hash', '=', codeHash).where(unused).returning('id'));
}

export async function countUnusedRecoveryCodes(db: Db, appId: string, userId: string): Promise<number> {
  const row = await db
    .selectFrom('mfa_recovery_codes')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where(userCodes(appId, userId))
    .where(unused)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function deleteUserRecoveryCodes(db: Db, appId: string, userId: string): Promise<void> {
  await db.deleteFrom('mfa_recovery_codes').where(userCodes(appId, userId)).execute();
}
