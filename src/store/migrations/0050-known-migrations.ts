import type { Kysely } from 'kysely';

// Issue 55: node_releases.known_migrations, every migration the node's build knows (a JSON array of names).
// Migrations land out of number order (0048 after 0049), so "the newest migration it knows" does not order
// two releases: a release is earlier than this build when it does not know a migration this build knows
// (services/nodes.ts). A row without the list (null) is a node of a release before this migration.
// Compatible: a nullable column, which release aad39b5 (0049) leaves null in the rows it writes.

export const compatible = true;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('node_releases').addColumn('known_migrations', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('node_releases').dropColumn('known_migrations').execute();
}
