import type { Kysely } from 'kysely';

// Rolling deploys (issue 55; docs/upgrading.md).
// - node_releases: one row per running `serve` process (its node id), the release it runs, the newest migration
//   it knows, when it started and when it last said it was alive (a heartbeat every NODE_HEARTBEAT_SECONDS).
//   A graceful shutdown removes the row; a crashed node's row stops being live after three missed beats.
//   Behaviour that an earlier release would undo asks whether a node of one is alive (services/nodes.ts).
// - migration_compatibility: the migrations marked compatible that this database has applied. A release that
//   does not know such a migration still starts on the database (store/migrations/index.ts); any other unknown
//   migration stops it. Only releases from this one on read the table.
// Compatible itself: new tables only, which the release before ignores. migration_compatibility may exist
// already: a compatible migration numbered before this one (0048) that ran first made it (index.ts).

export const compatible = true;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('node_releases')
    .addColumn('node_id', 'text', (c) => c.primaryKey())
    .addColumn('release', 'text', (c) => c.notNull())
    .addColumn('latest_migration', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('node_releases_seen').on('node_releases').column('last_seen_at').execute();
  await db.schema
    .createTable('migration_compatibility')
    .ifNotExists()
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('migration_compatibility').execute();
  await db.schema.dropTable('node_releases').execute();
}
