import type { Kysely } from 'kysely';

// Deleting an app or a tenant (docs/operations.md and docs/privacy.md): `deleted_at` marks it gone in one short write
// (every lookup that resolves an app skips it from then on, on every node), and the purge job then removes
// its data in bounded batches (src/services/apps/purge.ts). The indexes let each batch find the app's rows
// of a table by an index walk instead of a scan. A tenant row stays, marked, for its billing ledger.

const APP_INDEXES: [table: string, column: string][] = [
  ['hashcash_spent', 'app_id'],
  ['bot_auth_replays', 'app_id'],
  ['sso_tokens', 'source_app_id'],
  ['oauth_states', 'app_id'],
  ['mail_outbox', 'app_id'],
  ['object_uploads', 'app_id'],
  ['blob_deletions', 'app_id'],
  ['refresh_tokens', 'app_id'],
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').addColumn('deleted_at', 'text').execute();
  await db.schema.alterTable('tenants').addColumn('deleted_at', 'text').execute();
  // The last 4 characters of a secret key (the key itself is kept only as its hash): rotate-secret and
  // app show name which key is which. Null for keys made before this migration.
  await db.schema.alterTable('api_keys').addColumn('key_end', 'text').execute();
  // The purge job's question, "which apps are marked and not yet purged", walks this index.
  await db.schema.createIndex('applications_deleted').on('applications').column('deleted_at').execute();
  for (const [table, column] of APP_INDEXES) {
    await db.schema.createIndex(`${table}_${column}`).on(table).column(column).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, column] of [...APP_INDEXES].reverse()) await db.schema.dropIndex(`${table}_${column}`).execute();
  await db.schema.dropIndex('applications_deleted').execute();
  await db.schema.alterTable('api_keys').dropColumn('key_end').execute();
  await db.schema.alterTable('tenants').dropColumn('deleted_at').execute();
  await db.schema.alterTable('applications').dropColumn('deleted_at').execute();
}
