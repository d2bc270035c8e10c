import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db.js';
import type { Database } from '../types.js';

// Clean-up of single-use rows whose use is over. Maintenance spans every app by nature: these are the
// only deletes not scoped by app id, and they only ever touch rows that are already dead.

const count = (result: { numDeletedRows: bigint }[]) => Number(result.reduce((sum, r) => sum + r.numDeletedRows, 0n));

/** Spent hashcash challenges and bot signatures past their expiry (a replay would fail on time anyway). */
export async function deleteExpiredReplayGuards(db: Db, before: string): Promise<number> {
  const hashcash = await db.deleteFrom('hashcash_spent').where('expires_at', '<', before).execute();
  const bots = await db.deleteFrom('bot_auth_replays').where('expires_at', '<', before).execute();
  return count([...hashcash, ...bots]);
}

export async function deleteOldEmailChallenges(db: Db, createdBefore: string): Promise<number> {
  return count(await db.deleteFrom('email_challenges').where('created_at', '<', createdBefore).execute());
}

export async function deleteExpiredSsoTokens(db: Db, before: string): Promise<number> {
  return count(await db.deleteFrom('sso_tokens').where('expires_at', '<', before).execute());
}

/**
 * Refresh tokens past their expiry, and rotated ones kept long enough to catch a thief's late reuse
 * (which revokes the session) but not forever.
 */
export async function deleteDeadRefreshTokens(db: Db, now: string, rotatedBefore: string): Promise<number> {
  return count(
    await db
      .deleteFrom('refresh_tokens')
      .where((eb) => eb.or([eb('expires_at', '<', now), eb('rotated_at', '<', rotatedBefore)]))
      .execute(),
  );
}

const deadSession = (deadBefore: string) => (eb: ExpressionBuilder<Database, 'sessions'>) =>
  eb.or([eb('revoked_at', '<', deadBefore), eb('expires_at', '<', deadBefore)]);

/** Refresh tokens of sessions revoked or expired before `deadBefore` (deleted before their sessions). */
export async function deleteRefreshTokensOfDeadSessions(db: Db, deadBefore: string): Promise<number> {
  const dead = db.selectFrom('sessions').select('id').where(deadSession(deadBefore));
  return count(await db.deleteFrom('refresh_tokens').where('session_id', 'in', dead).execute());
}

/** Sessions revoked or expired before `deadBefore`: they refuse everything already, only the row remained. */
export async function deleteDeadSessions(db: Db, deadBefore: string): Promise<number> {
  return count(await db.deleteFrom('sessions').where(deadSession(deadBefore)).execute());
}
