import type { Kysely } from 'kysely';

// Issue 49: custom claims. applications.token_claims: the app's claims template as JSON text (docs/users.md,
// services/sessions/token-claims.ts checks it when set), or null: access tokens carry only the service's claims.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').addColumn('token_claims', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').dropColumn('token_claims').execute();
}
