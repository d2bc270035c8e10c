import type { Db } from '../db.js';

// What a user's deletion removes besides their rows and objects (docs/privacy.md): sessions with
// their refresh state, email codes and links, SSO tokens and OAuth identities. Each is one statement by
// an index on the user (migrations 0002, 0007, 0019), scoped by the app.

/** The user's sessions and the refresh tokens of the earlier form that name them: an access token of theirs then fails its session check on every node. */
export async function deleteUserSessions(db: Db, appId: string, userId: string): Promise<number> {
  const sessions = db.selectFrom('sessions').select('id').where('app_id', '=', appId).where('user_id', '=', userId);
  await db.deleteFrom('refresh_tokens').where('app_id', '=', appId).where('session_id', 'in', sessions).execute();
  const result = await db.deleteFrom('sessions').where('app_id', '=', appId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Codes and links sent to the user (verification, claims, magic links), used or not. */
export async function deleteUserChallenges(db: Db, appId: string, userId: string): Promise<void> {
  await db.deleteFrom('email_challenges').where('app_id', '=', appId).where('user_id', '=', userId).execute();
}

/** The addresses the user's codes and links went to (lower-cased), for the mail queued to them. */
export async function userChallengeAddresses(db: Db, appId: string, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('email_challenges').select('email_normalized').distinct().where('app_id', '=', appId).where('user_id', '=', userId).execute();
  return rows.map((r) => r.email_normalized);
}

/** SSO tokens minted for the user by this app (a pending bridge to another app of the tenant). */
export async function deleteUserSsoTokens(db: Db, appId: string, userId: string): Promise<void> {
  await db.deleteFrom('sso_tokens').where('user_id', '=', userId).where('source_app_id', '=', appId).execute();
}

/** The user's links to Google and Apple subjects: the same subject may sign up again as a new user. */
export async function deleteUserIdentities(db: Db, appId: string, userId: string): Promise<void> {
  await db.deleteFrom('oauth_identities').where('app_id', '=', appId).where('user_id', '=', userId).execute();
}

/**
 * The rows that made the user count once per month in billing (migration 0022). The per-month counts stay:
 * metering of past periods, and of this one so far, is a financial record (docs/privacy.md).
 */
export async function deleteUserActivity(db: Db, appId: string, userId: string): Promise<void> {
  await db.deleteFrom('active_users').where('app_id', '=', appId).where('user_id', '=', userId).execute();
}

/** Second factors (migration 0024): TOTP secrets and passkeys, recovery codes, MFA and passkey challenges in flight. */
export async function deleteUserSecondFactors(db: Db, appId: string, userId: string): Promise<void> {
  await db.deleteFrom('mfa_challenges').where('app_id', '=', appId).where('user_id', '=', userId).execute();
  await db.deleteFrom('webauthn_challenges').where('app_id', '=', appId).where('user_id', '=', userId).execute();
  await db.deleteFrom('mfa_recovery_codes').where('app_id', '=', appId).where('user_id', '=', userId).execute();
  await db.deleteFrom('mfa_factors').where('app_id', '=', appId).where('user_id', '=', userId).execute();
}
