import type { Db } from '../db.js';
import type { RefreshTokenRow } from '../types.js';

export async function insertRefreshToken(db: Db, row: RefreshTokenRow): Promise<void> {
  await db.insertInto('refresh_tokens').values(row).execute();
}

/**
 * Marks the token rotated if it is live (not rotated, not expired). Only one caller can win: the
 * conditional UPDATE is the whole check. Returns the session id to the winner, undefined to the rest.
 */
export async function claimRefreshToken(db: Db, appId: string, tokenHash: string, now: string): Promise<string | undefined> {
  const row = await db
    .updateTable('refresh_tokens')
    .set({ rotated_at: now })
    .where('token_hash', '=', tokenHash)
    .where('app_id', '=', appId)
    .where('rotated_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('session_id')
    .executeTakeFirst();
  return row?.session_id;
}

/** The token row of this app (whatever its state), or undefined. */
export async function findRefreshToken(db: Db, appId: string, tokenHash: string): Promise<RefreshTokenRow | undefined> {
  return db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).where('app_id', '=', appId).executeTakeFirst();
}
