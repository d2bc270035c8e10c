import type { Db } from '../db.js';
import { consumeLive } from './single-use.js';

// Challenges of passkey ceremonies (migration 0024): a registration (for a user) or a passkey sign-in
// (no user yet: discoverable credentials). Each is consumed once, by one conditional UPDATE.

export async function insertWebauthnChallenge(
  db: Db,
  row: { id: string; appId: string; userId: string | null; purpose: 'register' | 'signin'; challenge: string; now: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto('webauthn_challenges')
    .values({ id: row.id, app_id: row.appId, user_id: row.userId, purpose: row.purpose, challenge: row.challenge, created_at: row.now, expires_at: row.expiresAt, used_at: null })
    .execute();
}

/**
 * Consumes the app's live challenge of this purpose (and user, for a registration): answers its
 * challenge string, or undefined when it is unknown, used, expired or another's. One caller wins.
 */
export async function consumeWebauthnChallenge(db: Db, appId: string, id: string, purpose: 'register' | 'signin', userId: string | null, now: string): Promise<string | undefined> {
  let query = consumeLive(db, 'webauthn_challenges', now).where('id', '=', id).where('app_id', '=', appId).where('purpose', '=', purpose);
  query = userId === null ? query.where('user_id', 'is', null) : query.where('user_id', '=', userId);
  return (await query.returning('challenge').executeTakeFirst())?.challenge;
}
