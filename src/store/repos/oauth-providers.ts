import { sql } from 'kysely';
import type { Db } from '../db.js';
import type { DialectName } from '../dialect.js';
import { lockClause } from '../tables-dialect.js';
import { inTransaction } from '../transaction.js';
import type { OAuthProviderName } from '../schema/oauth.js';
import type { OAuthProviderRow } from '../types.js';

export type { OAuthProviderName };

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
        issuer: row.issuer,
        tenant: row.tenant,
        display_name: row.display_name,
      }),
    )
    .execute();
}

/**
 * Inserts or replaces a custom provider (`oidc-<name>`) unless the app already has `cap` others: the count
 * and the insert are one statement, after a lock on the app's row on PostgreSQL, so two PUTs of new names
 * at once cannot both pass the cap (SQLite's writers are serial already). False when the cap refused it.
 */
export async function upsertCustomOAuthProvider(db: Db, dialect: DialectName, row: OAuthProviderRow, cap: number): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    await sql`select id from applications where id = ${row.app_id}${lockClause(dialect, 'update')}`.execute(trx);
    const result = await sql`
      insert into oauth_providers (app_id, provider, client_id, secret_sealed, team_id, key_id, scopes, configured_at, updated_at, issuer, tenant, display_name)
      select ${row.app_id}, ${row.provider}, ${row.client_id}, ${row.secret_sealed}, ${row.team_id}, ${row.key_id}, ${row.scopes}, ${row.configured_at}, ${row.updated_at}, ${row.issuer}, ${row.tenant}, ${row.display_name}
      where exists (select 1 from oauth_providers where app_id = ${row.app_id} and provider = ${row.provider})
         or (select count(*) from oauth_providers where app_id = ${row.app_id} and provider like 'oidc-%') < ${cap}
      on conflict (app_id, provider) do update set
        client_id = excluded.client_id, secret_sealed = excluded.secret_sealed, scopes = excluded.scopes, updated_at = excluded.updated_at,
        issuer = excluded.issuer, display_name = excluded.display_name`.execute(trx);
    return Number(result.numAffectedRows ?? 0n) > 0;
  });
}

/**
 * Updates a configured provider's settings and leaves its sealed secret as it is (a PUT without the secret);
 * false when the app has no configuration of it (nothing written: an UPDATE, so a row deleted meanwhile stays
 * deleted).
 */
export async function updateOAuthProviderKeepingSecret(db: Db, row: Omit<OAuthProviderRow, 'secret_sealed' | 'configured_at'>): Promise<boolean> {
  const result = await db
    .updateTable('oauth_providers')
    .set({ client_id: row.client_id, team_id: row.team_id, key_id: row.key_id, scopes: row.scopes, updated_at: row.updated_at, issuer: row.issuer, tenant: row.tenant, display_name: row.display_name })
    .where('app_id', '=', row.app_id)
    .where('provider', '=', row.provider)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
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
