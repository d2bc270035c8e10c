import type { Db } from '../db.js';
import type { QueryCreator } from 'kysely';
import type { Database, RefreshTokenRow } from '../types.js';
import { liveKeyGate, type KeyGate } from './applications.js';

// Refresh tokens of the earlier form (before migration 0014 a session's tokens were rows here; now the
// session row holds its current one). Nothing new is written here: these rows rotate once into their
// session, or expire, and the clean-up deletes them (services/maintenance.ts).

/**
 * Marks the token rotated if it is live (not rotated, not expired) and the publishable key the route
 * presumed is live (KeyGate; nothing is written otherwise). Only one caller can win: the conditional
 * UPDATE is the whole check; it returns the session id to the winner, nothing to the rest.
 */
export function claimRefreshTokenStatement(db: QueryCreator<Database>, v: KeyGate & { tokenHash: string }) {
  return db
    .updateTable('refresh_tokens')
    .set({ rotated_at: v.now })
    .where('token_hash', '=', v.tokenHash)
    .where('app_id', '=', v.appId)
    .where('rotated_at', 'is', null)
    .where('expires_at', '>', v.now)
    .where((eb) => liveKeyGate(eb, v, 'publishable'))
    .returning('session_id');
}

/** The token row of this app (whatever its state), or undefined. */
export async function findRefreshToken(db: Db, appId: string, tokenHash: string): Promise<RefreshTokenRow | undefined> {
  return db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).where('app_id', '=', appId).executeTakeFirst();
}
