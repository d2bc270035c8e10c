import type { Kysely } from 'kysely';

// Issue 53: users imported from another service (POST /v1/users/import, docs/import.md).
// - users.external_id: the id the user had there (1-255 characters), unique per app (NULLs, the users made here,
//   do not collide on either database); GET /v1/users?external_id= probes this index.
// Imported password hashes need no column: users.password_hash holds their self-describing stored form.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('external_id', 'text').execute();
  await db.schema.createIndex('users_app_external_id').unique().on('users').columns(['app_id', 'external_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_app_external_id').execute();
  await db.schema.alterTable('users').dropColumn('external_id').execute();
}
