import type { Kysely } from 'kysely';

// Issue 38: uploads in flight name the node that serves them (node_id) and when it last vouched for them
// (alive_at, refreshed by that node every UPLOAD_STALE_SECONDS / 3). An upload its node stopped vouching
// for is released within minutes of a crash instead of an hour. Rows written by an earlier release have
// neither: they stay under the hour-long upload timeout. The app_id index serves billing, which leaves
// reservations out of the metered bytes.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('object_uploads').addColumn('node_id', 'text').execute();
  await db.schema.alterTable('object_uploads').addColumn('alive_at', 'text').execute();
  await db.schema.createIndex('object_uploads_node').on('object_uploads').column('node_id').execute();
  await db.schema.createIndex('object_uploads_alive').on('object_uploads').column('alive_at').execute();
  await db.schema.createIndex('object_uploads_app').on('object_uploads').column('app_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ['object_uploads_node', 'object_uploads_alive', 'object_uploads_app']) await db.schema.dropIndex(index).execute();
  await db.schema.alterTable('object_uploads').dropColumn('alive_at').execute();
  await db.schema.alterTable('object_uploads').dropColumn('node_id').execute();
}
