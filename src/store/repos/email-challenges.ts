import type { Db } from '../db.js';
import type { EmailChallengeRow } from '../types.js';

/**
 * Stores a new challenge and retires every live one of the same (app, email, purpose): one live code
 * per purpose, a new one replaces the old. Purposes never retire each other: a claim email asked for by
 * anyone must not kill the sign-up's own verification. Call inside a transaction.
 */
export async function replaceEmailChallenge(db: Db, row: EmailChallengeRow): Promise<void> {
  await db
    .updateTable('email_challenges')
    .set({ used_at: row.created_at })
    .where('app_id', '=', row.app_id)
    .where('email_normalized', '=', row.email_normalized)
    .where('purpose', '=', row.purpose)
    .where('used_at', 'is', null)
    .execute();
  await db.insertInto('email_challenges').values(row).execute();
}

/**
 * Counts one attempt against every live code of the email and returns the rows it counted, in one
 * conditional UPDATE: a row past `maxAttempts` is neither counted nor returned, so however many guesses
 * arrive at once, on however many nodes, each code is compared at most `maxAttempts` times (the row lock
 * orders concurrent updates; each sees the count the previous one wrote).
 */
export async function countCodeAttempt(
  db: Db,
  appId: string,
  emailNormalized: string,
  maxAttempts: number,
  now: string,
): Promise<EmailChallengeRow[]> {
  return db
    .updateTable('email_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('app_id', '=', appId)
    .where('email_normalized', '=', emailNormalized)
    .where('code_hash', 'is not', null)
    .where('used_at', 'is', null)
    .where('code_expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .returningAll()
    .execute();
}

/** Marks one challenge used; only one caller can win it. Returns it, or undefined. */
export async function consumeChallenge(db: Db, appId: string, id: string, now: string): Promise<EmailChallengeRow | undefined> {
  return db
    .updateTable('email_challenges')
    .set({ used_at: now })
    .where('app_id', '=', appId)
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Consumes the live challenge whose link token matches. The link itself names the app (an emailed
 * link cannot send headers), so this is the one lookup not scoped by a caller-given app id; the
 * caller checks the app against any key that was sent.
 */
export async function consumeByLink(db: Db, linkHash: string, now: string): Promise<EmailChallengeRow | undefined> {
  return db
    .updateTable('email_challenges')
    .set({ used_at: now })
    .where('link_hash', '=', linkHash)
    .where('used_at', 'is', null)
    .where('link_expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}
