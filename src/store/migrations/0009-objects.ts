import type { Kysely } from 'kysely';

// Buckets, objects and their usage counters (docs/storage.md). Byte counts are bigint (a bucket may
// pass 2 GiB); blob names are generated ids, never object keys.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').addColumn('objects_limit_bytes', 'bigint').execute();

  await db.schema
    .createTable('buckets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('max_size_bytes', 'bigint')
    .addColumn('max_size_bytes_per_user', 'bigint')
    .addColumn('used_bytes', 'bigint', (c) => c.notNull())
    .addColumn('object_count', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('buckets_app_name', ['app_id', 'name'])
    .execute();

  // owner is the user id, or '' for an object without one (part of the primary key, so never null).
  await db.schema
    .createTable('objects')
    .addColumn('bucket_id', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('blob_id', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('etag', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('objects_pk', ['bucket_id', 'owner', 'key'])
    .execute();
  await db.schema.createIndex('objects_listing').on('objects').columns(['bucket_id', 'key', 'owner']).execute();

  // Bytes of one user in one bucket (the per-user cap), committed and reserved.
  await db.schema
    .createTable('bucket_user_usage')
    .addColumn('bucket_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('used_bytes', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('bucket_user_usage_pk', ['bucket_id', 'user_id'])
    .execute();

  // Bytes of one app across its buckets (OBJECTS_STORAGE_LIMIT_BYTES); billing meters this table.
  await db.schema
    .createTable('object_storage_usage')
    .addColumn('app_id', 'text', (c) => c.primaryKey())
    .addColumn('used_bytes', 'bigint', (c) => c.notNull())
    .execute();

  // Uploads in flight: their reserved bytes and temporary blob. A row older than the upload timeout was
  // left by a crash; the sweep releases its bytes and deletes its blob.
  await db.schema
    .createTable('object_uploads')
    .addColumn('blob_id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('bucket_id', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('reserved_bytes', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('object_uploads_created').on('object_uploads').column('created_at').execute();

  // Blobs whose metadata is gone (overwritten, deleted, bucket deleted): removed after the commit, and by
  // the sweep when a node died in between.
  await db.schema
    .createTable('blob_deletions')
    .addColumn('blob_id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['blob_deletions', 'object_uploads', 'object_storage_usage', 'bucket_user_usage', 'objects', 'buckets']) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.alterTable('applications').dropColumn('objects_limit_bytes').execute();
}
