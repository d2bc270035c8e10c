import type { Kysely } from 'kysely';

// Issue 50: tenants run their own apps (docs/management.md).
// - tenants.system: 1 for the built-in system tenant that holds the console app (never listed to tenants).
// - tenant_members: a console user's role in a tenant (owner, admin, viewer); users of the console app.
// - tenant_invitations: an emailed invitation, its token kept as a SHA-256 hash, consumed in one write.
// - tenant_api_tokens: `tk_...` tokens for automation, hashed, with a role and an optional expiry.
// - console_operators: console users the operator named (`gatehouse operator add`).
// - console_setup_tokens: first-run setup links (single use, 24 h), hashed.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tenants').addColumn('system', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('tenant_members')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tenant_members_pk', ['tenant_id', 'user_id'])
    .execute();
  await db.schema.createIndex('tenant_members_user').on('tenant_members').column('user_id').execute();
  await db.schema
    .createTable('tenant_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_normalized', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .addColumn('accepted_by', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('tenant_invitations_tenant').on('tenant_invitations').columns(['tenant_id', 'created_at']).execute();
  await db.schema
    .createTable('tenant_api_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('tenant_api_tokens_tenant').on('tenant_api_tokens').columns(['tenant_id', 'created_at']).execute();
  await db.schema
    .createTable('console_operators')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('console_setup_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['console_setup_tokens', 'console_operators', 'tenant_api_tokens', 'tenant_invitations', 'tenant_members']) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.alterTable('tenants').dropColumn('system').execute();
}
