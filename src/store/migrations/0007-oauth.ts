import type { Kysely } from 'kysely';

// OAuth sign-in (docs/oauth.md): each app's provider configuration (secrets
// sealed with MASTER_KEY), the server-side state of authorizations in flight, and the links from a
// provider's subject to a user.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_providers')
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    // Google: the client secret; Apple: the PEM of the .p8 key. Sealed, bound to (app, provider).
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('team_id', 'text')
    .addColumn('key_id', 'text')
    .addColumn('scopes', 'text', (c) => c.notNull()) // JSON array
    .addColumn('configured_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_providers_pk', ['app_id', 'provider'])
    .execute();

  await db.schema
    .createTable('oauth_states')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('code_verifier_sealed', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('redirect_url', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oauth_identities')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('email', 'text')
    .addColumn('name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_identities_pk', ['app_id', 'provider', 'subject'])
    .execute();
  await db.schema.createIndex('oauth_identities_user').on('oauth_identities').columns(['app_id', 'user_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['oauth_identities', 'oauth_states', 'oauth_providers']) {
    await db.schema.dropTable(table).execute();
  }
}
