import type { Db } from '../db.js';

/**
 * Marks a donation challenge as spent. The primary key on challenge_id is the whole once-only rule
 * (across every app, bot sign-ups and billing top-ups alike): a second insert fails with a unique
 * violation, which the caller turns into 409. Run it inside the transaction of what the challenge pays for,
 * so a failure there rolls the mark back and the challenge stays usable.
 */
export async function insertDonationChallengeUse(
  db: Db,
  appId: string,
  challengeId: string,
  purpose: 'bot' | 'topup',
  now: string,
): Promise<void> {
  await db.insertInto('donation_challenges_used').values({ challenge_id: challengeId, app_id: appId, purpose, created_at: now }).execute();
}
