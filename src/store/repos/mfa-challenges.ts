import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db.js';
import type { Database } from '../types.js';
import { wroteOne } from './conditional-write.js';

// The state between a first factor and the second (migration 0024). A challenge is consumed by one
// conditional UPDATE, and each wrong guess is counted by one conditional UPDATE that also checks the
// limit: however many guesses arrive at once, on however many nodes, at most MFA_ATTEMPTS count.

export const MFA_ATTEMPTS = 5;

/** A challenge still in play at `now`: unused, unexpired, with guesses left. */
const liveChallenge = (now: string) => (eb: ExpressionBuilder<Database, 'mfa_challenges'>) =>
  eb.and([eb('used_at', 'is', null), eb('expires_at', '>', now), eb('attempts', '<', MFA_ATTEMPTS)]);

/** The write of the app's challenge `id` while it is live; the caller sets and says what it returns. */
function updateLiveChallenge(db: Db, appId: string, id: string, now: string) {
  return db.updateTable('mfa_challenges').where('id', '=', id).where('app_id', '=', appId).where(liveChallenge(now));
}

export interface NewChallenge {
  id: string;
  appId: string;
  userId: string;
  tokenHash: string;
  amr: string;
  /** The first factor's session.created method and OAuth provider (migration 0046). */
  method: string;
  provider: string | null;
  now: string;
  expiresAt: string;
}

export async function insertChallenge(db: Db, c: NewChallenge): Promise<void> {
  await db
    .insertInto('mfa_challenges')
    .values({ id: c.id, app_id: c.appId, user_id: c.userId, token_hash: c.tokenHash, amr: c.amr, method: c.method, provider: c.provider, created_at: c.now, expires_at: c.expiresAt, used_at: null, webauthn_challenge: null })
    .execute();
}

/** The app's live challenge with this token hash: unused, unexpired, with guesses left; else undefined. */
export async function findLiveChallenge(db: Db, appId: string, tokenHash: string, now: string) {
  return db
    .selectFrom('mfa_challenges')
    .select(['id', 'user_id', 'amr', 'method', 'provider', 'webauthn_challenge', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .where('app_id', '=', appId)
    .where(liveChallenge(now))
    .executeTakeFirst();
}

/** Consumes the challenge if it is still live (one caller wins); false otherwise. */
export async function consumeChallenge(db: Db, appId: string, id: string, now: string): Promise<boolean> {
  return wroteOne(updateLiveChallenge(db, appId, id, now).set({ used_at: now }).returning('id'));
}

/** Counts a wrong guess if the challenge is live and has guesses left; answers the guesses used, or undefined when it is dead. */
export async function countWrongGuess(db: Db, appId: string, id: string, now: string): Promise<number | undefined> {
  const row = await updateLiveChallenge(db, appId, id, now)
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .returning('attempts')
    .executeTakeFirst();
  return row?.attempts;
}

/** Keeps the WebAuthn challenge a passkey must sign to complete this MFA challenge. */
export async function setWebauthnChallenge(db: Db, appId: string, id: string, challenge: string): Promise<void> {
  await db.updateTable('mfa_challenges').set({ webauthn_challenge: challenge }).where('id', '=', id).where('app_id', '=', appId).execute();
}

export async function deleteUserChallenges(db: Db, appId: string, userId: string): Promise<void> {
  await db.deleteFrom('mfa_challenges').where('app_id', '=', appId).where('user_id', '=', userId).execute();
}
