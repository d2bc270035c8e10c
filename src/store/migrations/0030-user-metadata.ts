import type { Kysely } from 'kysely';

// Issue 49: users a product can shape.
// - users.public_metadata, private_metadata, unsafe_metadata: JSON objects as text ('{}' when none), at most
//   8 KiB each (services/accounts/metadata.ts checks it before any write). Text on both databases: the service
//   never queries inside them, and the user's row is read whole anyway (GET /v1/me's joined statement).
// - users.banned: 1 while the server bans the user (PATCH /v1/users/{id}); every sign-in and refresh is refused.

export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['public_metadata', 'private_metadata', 'unsafe_metadata']) {
    await db.schema.alterTable('users').addColumn(column, 'text', (c) => c.notNull().defaultTo('{}')).execute();
  }
  await db.schema.alterTable('users').addColumn('banned', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['banned', 'unsafe_metadata', 'private_metadata', 'public_metadata']) {
    await db.schema.alterTable('users').dropColumn(column).execute();
  }
}
