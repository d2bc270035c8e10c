import type { Db } from '../db.js';
import { isUniqueViolation } from '../dialect.js';

/**
 * Records a hashcash challenge as spent. The primary key on its hash is the whole check, so exactly
 * one caller wins across every node. Returns false to everyone who lost (already spent).
 */
export async function insertSpentChallenge(db: Db, appId: string, challengeHash: string, expiresAt: string): Promise<boolean> {
  try {
    await db.insertInto('hashcash_spent').values({ challenge_hash: challengeHash, app_id: appId, expires_at: expiresAt }).execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

/**
 * Forgets this app's spent challenges that expired before `before`: an expired challenge is refused
 * before this table is asked, so its row is dead weight. Pass a time some minutes in the past, so a node
 * whose clock runs behind never sees a pruned challenge as unexpired.
 */
export async function deleteSpentChallengesExpiredBefore(db: Db, appId: string, before: string): Promise<number> {
  const result = await db.deleteFrom('hashcash_spent').where('app_id', '=', appId).where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
