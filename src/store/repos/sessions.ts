import type { Db } from '../db.js';
import { compiledQuery } from '../compiled.js';
import type { SessionRow } from '../types.js';

export const insertSessionQuery = compiledQuery(['id', 'app_id', 'user_id', 'created_at', 'expires_at', 'refresh_hash'], (db, v) =>
  db.insertInto('sessions').values({ ...v, sweep_after: v.expires_at, revoked_at: null }),
);

/** The session if it belongs to the app, is not revoked and has not expired; else undefined. */
export async function findLiveSession(db: Db, appId: string, sessionId: string, now: string): Promise<SessionRow | undefined> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('id', '=', sessionId)
    .where('app_id', '=', appId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * Revokes the session if it is live; true when this call revoked it. `sweep_after` moves to now: the
 * clean-up looks at the session again once the retention after its revocation has passed.
 */
export async function revokeSession(db: Db, appId: string, sessionId: string, now: string): Promise<boolean> {
  const rows = await db
    .updateTable('sessions')
    .set({ revoked_at: now, sweep_after: now })
    .where('id', '=', sessionId)
    .where('app_id', '=', appId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.length === 1;
}

/** Revokes every live session of the user (pre-hijacking rule, password reset). */
export async function revokeUserSessions(db: Db, appId: string, userId: string, now: string): Promise<number> {
  const rows = await db
    .updateTable('sessions')
    .set({ revoked_at: now, sweep_after: now })
    .where('app_id', '=', appId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.length;
}
