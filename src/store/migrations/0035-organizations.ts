import { sql, type Kysely } from 'kysely';

// Issue 52: organisations (docs/organizations.md).
// - applications.organizations_enabled (1: the organisation routes answer; 0: every one is 404) and
//   org_creation ('users': any signed-in user may create one; 'server': the Secret routes only).
// - organizations: one app's; slug unique among its live ones (a deleted one is purged in batches, its slug
//   free at once); members_count and owners_count are the counters the caps and the last-owner rule change in
//   the same write as the membership they count.
// - organization_members: (organization, user) → role; organization_user_counts: how many organisations a
//   user is in (the cap of 100 per user, one conditional upsert).
// - organization_roles: an app's custom roles and their permissions (JSON text).
// - organization_invitations: emailed invitations; the token kept as its SHA-256; accepted or revoked in one
//   conditional write.
// - sessions.active_org_id: the session's active organisation (its tokens' org claims).
// - Rows and objects of an organisation are owned by the key 'org:<organization id>' in the column that holds a
//   user's id (custom tables' user_id, objects' owner, bucket_user_usage's user_id): one index, one quota
//   table and one deletion path serve both. Custom tables gain created_by (the writer's user id); buckets gain
//   max_size_bytes_per_org.

/** `t_<hex>` of a custom table id (a generated UUID; checked, as custom-rows.ts does). */
function dataTable(tableId: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(tableId)) throw new Error(`unexpected custom table id ${tableId}`);
  return `t_${tableId.replace(/-/g, '')}`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').addColumn('organizations_enabled', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('applications').addColumn('org_creation', 'text', (c) => c.notNull().defaultTo('users')).execute();
  await db.schema.alterTable('sessions').addColumn('active_org_id', 'text').execute();
  await db.schema.alterTable('buckets').addColumn('max_size_bytes_per_org', 'bigint').execute();

  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('members_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('owners_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('organizations_app_slug').unique().on('organizations').columns(['app_id', 'slug']).where(sql.ref('deleted_at'), 'is', null).execute();
  await db.schema.createIndex('organizations_app_listing').on('organizations').columns(['app_id', 'id']).execute();

  await db.schema
    .createTable('organization_members')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('organization_members_pk', ['organization_id', 'user_id'])
    .execute();
  await db.schema.createIndex('organization_members_user').on('organization_members').columns(['app_id', 'user_id', 'organization_id']).execute();

  await db.schema
    .createTable('organization_user_counts')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('organizations', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('organization_user_counts_pk', ['app_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('organization_roles')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('organization_roles_pk', ['app_id', 'key'])
    .execute();

  await db.schema
    .createTable('organization_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_normalized', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('inviter_user_id', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('organization_invitations_org').on('organization_invitations').columns(['organization_id', 'status', 'created_at', 'id']).execute();
  await db.schema.createIndex('organization_invitations_email').on('organization_invitations').columns(['app_id', 'email_normalized', 'status']).execute();

  const tables = (await db.selectFrom('custom_tables').select('id').execute()) as { id: string }[];
  for (const { id } of tables) await sql`alter table ${sql.table(dataTable(id))} add column created_by text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const tables = (await db.selectFrom('custom_tables').select('id').execute()) as { id: string }[];
  for (const { id } of tables) await sql`alter table ${sql.table(dataTable(id))} drop column created_by`.execute(db);
  for (const table of ['organization_invitations', 'organization_roles', 'organization_user_counts', 'organization_members', 'organizations']) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.alterTable('buckets').dropColumn('max_size_bytes_per_org').execute();
  await db.schema.alterTable('sessions').dropColumn('active_org_id').execute();
  await db.schema.alterTable('applications').dropColumn('org_creation').execute();
  await db.schema.alterTable('applications').dropColumn('organizations_enabled').execute();
}
