import type { Db } from '../db.js';
import type { EmailChallengeRow } from '../types.js';

/**
 * Stores a new challenge and retires every live one of the same (app, email, purpose): one live code
 * per purpose, a new one replaces the old. The two verification purposes count as one. Call inside a
 * transaction.
 */
export async function replaceEmailChallenge(db: Db, row: EmailChallengeRow): Promise<void> {
  await db
    .updateTable('email_challenges')
    .set({ used_at: row.created_at })
    .where('app_id', '=', row.app_id)
    .where('email_normalized', '=', row.email_normalized)
    .where('purpose', 'in', row.purpose === 'magic_link' ? ['magic_link'] : ['verify_email', 'claim_email'])
    .where('used_at', 'is', null)
    .execute();
  await db.insertInto('email_challenges').values(row).execute();
}

/**
 * Consumes the live challenge whose code matches (not expired, under the attempt limit). One
 * conditional UPDATE: a code works once, whatever races. Returns it, or undefined.
 */
export async function consumeByCode(
  db: Db,
  appId: string,
  emailNormalized: string,
  codeHash: string,
  maxAttempts: number,
  now: string,
): Promise<EmailChallengeRow | undefined> {
  return db
    .updateTable('email_challenges')
    .set({ used_at: now })
    .where('app_id', '=', appId)
    .where('email_normalized', '=', emailNormalized)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .where('code_expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .returningAll()
    .executeTakeFirst();
}

/** Counts a wrong code against every live code of that email in the app. */
export async function countWrongCode(db: Db, appId: string, emailNormalized: string, now: string): Promise<void> {
  await db
    .updateTable('email_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('app_id', '=', appId)
    .where('email_normalized', '=', emailNormalized)
    .where('used_at', 'is', null)
    .where('code_expires_at', '>', now)
    .execute();
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
