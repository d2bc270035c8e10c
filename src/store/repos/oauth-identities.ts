import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db.js';
import type { Database, OAuthIdentityRow } from '../types.js';
import type { OAuthProviderName } from './oauth-providers.js';

/** One link: the table's primary key (app, provider, subject), the app always part of it. */
const identityKey = (eb: ExpressionBuilder<Database, 'oauth_identities'>, appId: string, provider: OAuthProviderName, subject: string) =>
  eb.and([eb('app_id', '=', appId), eb('provider', '=', provider), eb('subject', '=', subject)]);

/** The link of the provider's subject to a user of this app, or undefined. */
export async function findOAuthIdentity(db: Db, appId: string, provider: OAuthProviderName, subject: string): Promise<OAuthIdentityRow | undefined> {
  return db
    .selectFrom('oauth_identities')
    .selectAll()
    .where((eb) => identityKey(eb, appId, provider, subject))
    .executeTakeFirst();
}

/** Links a subject to a user; the primary key (app, provider, subject) refuses a second link. */
export async function insertOAuthIdentity(db: Db, row: OAuthIdentityRow): Promise<void> {
  await db.insertInto('oauth_identities').values(row).execute();
}

/** Records what the provider said last (email, and a name when it sent one). */
export async function touchOAuthIdentity(
  db: Db,
  appId: string,
  provider: OAuthProviderName,
  subject: string,
  changes: { email: string | null; name?: string | null; now: string },
): Promise<void> {
  await db
    .updateTable('oauth_identities')
    .set({ email: changes.email, ...(changes.name ? { name: changes.name } : {}), updated_at: changes.now })
    .where((eb) => identityKey(eb, appId, provider, subject))
    .execute();
}

/**
 * Unlinks every provider subject from the user (an index walk on (app_id, user_id)). Run in the
 * transaction that proves the user's email: a link made before the proof was made by whoever held the
 * account then, not necessarily by the inbox's owner. Returns how many links were removed.
 */
export async function deleteUserOAuthIdentities(db: Db, appId: string, userId: string): Promise<number> {
  const result = await db.deleteFrom('oauth_identities').where('app_id', '=', appId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
