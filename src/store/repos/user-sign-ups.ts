import { sql } from 'kysely';
import type { Db } from '../db.js';
import { normalizeEmail } from './user-row.js';

// The single writes of a sign-up's life before its email is proven: verified, contested, or
// claimed by a proven owner of the address (SSO, OAuth).

/**
 * Verifies a sign-up's email in one write. A contested account (someone else's sign-up was refused for
 * this email while it was pending) loses the password set before, in the same statement, so no race
 * between the contest and the proof can keep it. Returns whether it was contested (the caller then
 * revokes earlier sessions), or undefined when the user was already verified.
 */
export async function verifySignUpEmail(db: Db, appId: string, userId: string, now: string): Promise<{ contested: boolean } | undefined> {
  const row = await db
    .updateTable('users')
    .set({
      email_verified: 1,
      requires_verification: 0,
      password_hash: sql<string | null>`CASE WHEN contested = 1 THEN NULL ELSE password_hash END`,
      updated_at: now,
    })
    .where('app_id', '=', appId)
    .where('id', '=', userId)
    .where('email_verified', '=', 0)
    .returning('contested')
    .executeTakeFirst();
  return row && { contested: row.contested === 1 };
}

/**
 * Marks the unverified self sign-up holding this email as contested (a sign-up for the same email was
 * refused because of it). Verified accounts and server-created users are left alone.
 */
export async function markSignUpContested(db: Db, appId: string, email: string): Promise<boolean> {
  const rows = await db
    .updateTable('users')
    .set({ contested: 1 })
    .where('app_id', '=', appId)
    .where('email_normalized', '=', normalizeEmail(email))
    .where('email_verified', '=', 0)
    .where('requires_verification', '=', 1)
    .returning('id')
    .execute();
  return rows.length > 0;
}

/**
 * Pre-hijacking rule (SSO, OAuth): an unverified user that a proven owner of the email links into loses
 * its password and becomes verified. Conditional on email_verified = 0, so only the first linker acts;
 * true when this call changed the user (the caller then revokes its sessions).
 */
export async function claimUnverifiedUser(db: Db, appId: string, userId: string, now: string): Promise<boolean> {
  const rows = await db
    .updateTable('users')
    .set({ email_verified: 1, requires_verification: 0, password_hash: null, updated_at: now })
    .where('app_id', '=', appId)
    .where('id', '=', userId)
    .where('email_verified', '=', 0)
    .returning('id')
    .execute();
  return rows.length === 1;
}
