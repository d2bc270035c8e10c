import type { Kysely } from 'kysely';

// Tenants, applications, API keys and signing keys. Portable types only (text, integer).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('applications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.unique())
    .addColumn('allowed_origins', 'text', (c) => c.notNull())
    .addColumn('verification_method', 'text', (c) => c.notNull())
    .addColumn('passwords_enabled', 'integer', (c) => c.notNull())
    .addColumn('hashcash_enabled', 'integer')
    .addColumn('hashcash_difficulty', 'integer', (c) => c.notNull())
    .addColumn('bot_min_usd_cents', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('applications_tenant').on('applications').column('tenant_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('publishable_key', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_app').on('api_keys').columns(['app_id', 'kind']).execute();

  await db.schema
    .createTable('signing_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('kid', 'text', (c) => c.notNull().unique())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_key_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .addUniqueConstraint('signing_keys_app_version', ['app_id', 'version'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['signing_keys', 'api_keys', 'applications', 'tenants']) {
    await db.schema.dropTable(table).execute();
  }
}
