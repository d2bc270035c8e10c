import type { Db } from '../db.js';
import type { OAuthProviderRow } from '../types.js';

export type OAuthProviderName = 'google' | 'apple';

/** Inserts or replaces the app's configuration of one provider; `configured_at` of a first PUT is kept. */
export async function upsertOAuthProvider(db: Db, row: OAuthProviderRow): Promise<void> {
  await db
    .insertInto('oauth_providers')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['app_id', 'provider']).doUpdateSet({
        client_id: row.client_id,
        secret_sealed: row.secret_sealed,
        team_id: row.team_id,
        key_id: row.key_id,
        scopes: row.scopes,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** The app's configuration of the provider, or undefined. */
export async function findOAuthProvider(db: Db, appId: string, provider: OAuthProviderName): Promise<OAuthProviderRow | undefined> {
  return db.selectFrom('oauth_providers').selectAll().where('app_id', '=', appId).where('provider', '=', provider).executeTakeFirst();
}

export async function listOAuthProviders(db: Db, appId: string): Promise<OAuthProviderRow[]> {
  return db.selectFrom('oauth_providers').selectAll().where('app_id', '=', appId).orderBy('provider').execute();
}

/** True when a configuration was removed. */
export async function deleteOAuthProvider(db: Db, appId: string, provider: OAuthProviderName): Promise<boolean> {
  const result = await db.deleteFrom('oauth_providers').where('app_id', '=', appId).where('provider', '=', provider).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
