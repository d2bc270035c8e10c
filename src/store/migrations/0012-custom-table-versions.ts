import type { Kysely } from 'kysely';

// A schema version per custom table, bumped in the same transaction as every change to its columns. A
// node keeps a table's metadata in memory and the query's own statement checks this version, so a change
// made through any node takes effect at once on every node (src/services/tables/metadata-cache.ts).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('custom_tables').addColumn('schema_version', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('custom_tables').dropColumn('schema_version').execute();
}
