import { newUuid } from '../../crypto/ids.js';
import type { Db } from '../db.js';

// Recovery codes (migration 0024): stored as hashes, each used by one conditional UPDATE.

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
  const row = await db
    .updateTable('mfa_recovery_codes')
    .set({ used_at: now })
    .where('app_id', '=', appId)
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function countUnusedRecoveryCodes(db: Db, appId: string, userId: string): Promise<number> {
  const row = await db
    .selectFrom('mfa_recovery_codes')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('app_id', '=', appId)
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function deleteUserRecoveryCodes(db: Db, appId: string, userId: string): Promise<void> {
  await db.deleteFrom('mfa_recovery_codes').where('app_id', '=', appId).where('user_id', '=', userId).execute();
}
