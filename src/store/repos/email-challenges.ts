import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db.js';
import type { Database, EmailChallengeRow } from '../types.js';

export type ChallengePurpose = EmailChallengeRow['purpose'];

/**
 * The UPDATE that marks unused challenges used at `now`; the caller names which (by its app, but for a
 * link's consumption, whose token names its app: consumeByLink). A used challenge is never marked again, so
 * of callers racing for one, only one gets it back.
 */
function markUsed(db: Db, now: string) {
  return db.updateTable('email_challenges').set({ used_at: now }).where('used_at', 'is', null);
}

/** The challenge of this link token while the link is unexpired; that it is unused the caller checks (markUsed, or a read's own). */
const linkUnexpired = (eb: ExpressionBuilder<Database, 'email_challenges'>, linkHash: string, now: string) =>
  eb.and([eb('link_hash', '=', linkHash), eb('link_expires_at', '>', now)]);

/** A challenge with a code that is neither used nor expired at `now`. */
const liveCode = (eb: ExpressionBuilder<Database, 'email_challenges'>, now: string) =>
  eb.and([eb('code_hash', 'is not', null), eb('used_at', 'is', null), eb('code_expires_at', '>', now)]);

/**
 * Stores a new challenge and retires every live one of the same (app, email, purpose): one live code
 * per purpose, a new one replaces the old. Purposes never retire each other: a claim email asked for by
 * anyone must not kill the sign-up's own verification. Call inside a transaction.
 */
export async function replaceEmailChallenge(db: Db, row: EmailChallengeRow): Promise<void> {
  await retireEmailChallenges(db, row.app_id, row.email_normalized, row.purpose, row.created_at);
  await insertEmailChallenge(db, row);
}

/** Retires every live challenge of (app, email, purpose). */
export async function retireEmailChallenges(db: Db, appId: string, emailNormalized: string, purpose: ChallengePurpose, now: string): Promise<void> {
  await markUsed(db, now).where('app_id', '=', appId).where('email_normalized', '=', emailNormalized).where('purpose', '=', purpose).execute();
}

export async function insertEmailChallenge(db: Db, row: EmailChallengeRow): Promise<void> {
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
  purposes: readonly ChallengePurpose[],
  maxAttempts: number,
  now: string,
): Promise<EmailChallengeRow[]> {
  return codeAttempt(db, appId, maxAttempts, now)
    .where('email_normalized', '=', emailNormalized)
    .where('purpose', 'in', purposes)
    .returningAll()
    .execute();
}

/** One more comparison of the app's live, unused codes still under `maxAttempts`: the caller names which. */
function codeAttempt(db: Db, appId: string, maxAttempts: number, now: string) {
  return db
    .updateTable('email_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('app_id', '=', appId)
    .where((eb) => liveCode(eb, now))
    .where('attempts', '<', maxAttempts);
}

/** Marks one challenge used; only one caller can win it. Returns it, or undefined. */
export async function consumeChallenge(db: Db, appId: string, id: string, now: string): Promise<EmailChallengeRow | undefined> {
  return markUsed(db, now).where('app_id', '=', appId).where('id', '=', id).returningAll().executeTakeFirst();
}

/**
 * Consumes the live challenge whose link token matches. The link itself names the app (an emailed
 * link cannot send headers), so this is the one lookup not scoped by a caller-given app id; the
 * caller checks the app against any key that was sent.
 */
export async function consumeByLink(
  db: Db,
  linkHash: string,
  purposes: readonly ChallengePurpose[],
  now: string,
  appId?: string,
): Promise<EmailChallengeRow | undefined> {
  let query = markUsed(db, now)
    .where((eb) => linkUnexpired(eb, linkHash, now))
    .where('purpose', 'in', purposes);
  // A token presented with the app's key (password reset): another app's token is not consumed.
  if (appId !== undefined) query = query.where('app_id', '=', appId);
  return query.returningAll().executeTakeFirst();
}

/**
 * countCodeAttempt for a challenge found by its user rather than its email (a change of email: the
 * confirm names no address). The same single conditional write: at most `maxAttempts` comparisons.
 */
export async function countUserCodeAttempt(
  db: Db,
  appId: string,
  userId: string,
  purpose: ChallengePurpose,
  maxAttempts: number,
  now: string,
): Promise<EmailChallengeRow[]> {
  return codeAttempt(db, appId, maxAttempts, now).where('user_id', '=', userId).where('purpose', '=', purpose).returningAll().execute();
}

/** The live challenge of a link token of one of `purposes`, read without consuming it (or undefined). */
export async function findLiveByLink(db: Db, appId: string, linkHash: string, purposes: readonly ChallengePurpose[], now: string): Promise<EmailChallengeRow | undefined> {
  return db
    .selectFrom('email_challenges')
    .selectAll()
    .where((eb) => linkUnexpired(eb, linkHash, now))
    .where('app_id', '=', appId)
    .where('purpose', 'in', purposes)
    .where('used_at', 'is', null)
    .executeTakeFirst();
}

/** Consumes the user's live link challenge of `purpose` with this token: only one caller wins. */
export async function consumeUserLink(db: Db, appId: string, userId: string, purpose: ChallengePurpose, linkHash: string, now: string): Promise<EmailChallengeRow | undefined> {
  return markUsed(db, now)
    .where((eb) => linkUnexpired(eb, linkHash, now))
    .where('app_id', '=', appId)
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Retires the user's live challenges: of `purpose` (a new change of email replaces the user's earlier
 * one, whatever address it named), or of every purpose (the email changed: codes and links sent to
 * the old address die with it).
 */
export async function retireUserChallenges(db: Db, appId: string, userId: string, purpose: ChallengePurpose | undefined, now: string): Promise<void> {
  let query = markUsed(db, now).where('app_id', '=', appId).where('user_id', '=', userId);
  if (purpose) query = query.where('purpose', '=', purpose);
  await query.execute();
}
