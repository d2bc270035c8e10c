import type { Kysely } from 'kysely';

// Pre-hijacking by sign-up (docs/auth.md): a sign-up refused because an unverified self sign-up
// holds the email marks that account contested; verifying it then drops the earlier password.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('contested', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('contested').execute();
}
