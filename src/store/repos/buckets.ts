import type { Db } from '../db.js';
import type { BucketRow, BucketsTable } from '../types.js';
import type { Updateable } from 'kysely';

export interface Bucket {
  id: string;
  appId: string;
  name: string;
  maxSizeBytes: number | null;
  maxSizeBytesPerUser: number | null;
  maxSizeBytesPerOrg: number | null;
  usedBytes: number;
  objectCount: number;
  createdAt: string;
  updatedAt: string;
}

export function toBucket(row: BucketRow): Bucket {
  return {
    id: row.id,
    appId: row.app_id,
    name: row.name,
    maxSizeBytes: row.max_size_bytes === null ? null : Number(row.max_size_bytes),
    maxSizeBytesPerUser: row.max_size_bytes_per_user === null ? null : Number(row.max_size_bytes_per_user),
    maxSizeBytesPerOrg: row.max_size_bytes_per_org == null ? null : Number(row.max_size_bytes_per_org),
    usedBytes: Number(row.used_bytes),
    objectCount: Number(row.object_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function insertBucket(db: Db, row: BucketRow): Promise<void> {
  await db.insertInto('buckets').values(row).execute();
}

/** The app's bucket, or undefined (another app's bucket id is undefined too). */
export async function findBucket(db: Db, appId: string, bucketId: string): Promise<Bucket | undefined> {
  const row = await db.selectFrom('buckets').selectAll().where('app_id', '=', appId).where('id', '=', bucketId).executeTakeFirst();
  return row && toBucket(row);
}

export async function listBuckets(db: Db, appId: string): Promise<Bucket[]> {
  const rows = await db.selectFrom('buckets').selectAll().where('app_id', '=', appId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toBucket);
}

export async function updateBucket(db: Db, appId: string, bucketId: string, changes: Updateable<BucketsTable>): Promise<boolean> {
  const result = await db.updateTable('buckets').set(changes).where('app_id', '=', appId).where('id', '=', bucketId).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes the bucket row; returns its used bytes (committed and in flight) for the app's counter. */
export async function deleteBucketReturning(db: Db, appId: string, bucketId: string): Promise<{ used_bytes: number } | undefined> {
  const row = await db.deleteFrom('buckets').where('app_id', '=', appId).where('id', '=', bucketId).returning('used_bytes').executeTakeFirst();
  return row && { used_bytes: Number(row.used_bytes) };
}

/**
 * Adds `delta` bytes (and `countDelta` objects) to the bucket in one conditional write: a positive delta
 * only while the total cap holds. Returns the per-user cap, or undefined when the cap refused it or the
 * bucket is gone.
 */
export async function addBucketUsage(
  db: Db,
  appId: string,
  bucketId: string,
  delta: number,
  countDelta = 0,
): Promise<{ maxSizeBytesPerUser: number | null; maxSizeBytesPerOrg: number | null } | undefined> {
  let query = db
    .updateTable('buckets')
    .set((eb) => ({ used_bytes: eb('used_bytes', '+', delta), object_count: eb('object_count', '+', countDelta) }))
    .where('app_id', '=', appId)
    .where('id', '=', bucketId);
  if (delta > 0) {
    query = query.where((eb) => eb.or([eb('max_size_bytes', 'is', null), eb(eb('used_bytes', '+', delta), '<=', eb.ref('max_size_bytes'))]));
  }
  const row = await query.returning(['max_size_bytes_per_user', 'max_size_bytes_per_org']).executeTakeFirst();
  return row && { maxSizeBytesPerUser: row.max_size_bytes_per_user === null ? null : Number(row.max_size_bytes_per_user), maxSizeBytesPerOrg: row.max_size_bytes_per_org == null ? null : Number(row.max_size_bytes_per_org) };
}
