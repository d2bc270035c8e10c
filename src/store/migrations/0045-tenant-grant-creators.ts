import type { Kysely } from 'kysely';

// Security review (issue 50): what a member makes does not outlive the member's right to make it.
// - tenant_api_tokens.created_by, tenant_invitations.created_by: the console user (member) who made the
//   token or invitation (a token made by a token names that token's creator; null for ADMIN_TOKEN and rows
//   made before this). Removing the member, or demoting them below a token's or invitation's role, revokes
//   those rows in the same transaction (services/management/creator-grants.ts).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tenant_api_tokens').addColumn('created_by', 'text').execute();
  await db.schema.alterTable('tenant_invitations').addColumn('created_by', 'text').execute();
  await db.schema.createIndex('tenant_api_tokens_creator').on('tenant_api_tokens').columns(['tenant_id', 'created_by']).execute();
  await db.schema.createIndex('tenant_invitations_creator').on('tenant_invitations').columns(['tenant_id', 'created_by']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tenant_invitations_creator').execute();
  await db.schema.dropIndex('tenant_api_tokens_creator').execute();
  await db.schema.alterTable('tenant_invitations').dropColumn('created_by').execute();
  await db.schema.alterTable('tenant_api_tokens').dropColumn('created_by').execute();
}
