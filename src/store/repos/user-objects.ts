import type { Db } from '../db.js';
import { rowLimit } from '../limit.js';
import { queueAndDeleteObjects, queueBlobDeletions, type QueuedBlob } from './objects.js';

// A user's objects and uploads in flight, found by the (app_id, owner, ...) indexes of migration 0019:
// what a user's deletion removes and an export lists.

export interface BucketShare {
  bucketId: string;
  bytes: number;
  objects: number;
}

/**
 * What the user holds in each bucket: committed objects (bytes and count) plus the bytes their uploads in
 * flight reserved. Read under the app's usage lock (services/objects/storage-quota.ts), which every transaction
 * that adds, replaces or removes an object takes first, so it is still exact when the rows are deleted.
 */
export async function userShares(db: Db, appId: string, userId: string): Promise<BucketShare[]> {
  const committed = await db
    .selectFrom('objects')
    .select((eb) => ['bucket_id', eb.fn.sum<number>('size_bytes').as('bytes'), eb.fn.countAll<number>().as('n')])
    .where('app_id', '=', appId)
    .where('owner', '=', userId)
    .groupBy('bucket_id')
    .execute();
  const reserved = await db
    .selectFrom('object_uploads')
    .select((eb) => ['bucket_id', eb.fn.sum<number>('reserved_bytes').as('bytes')])
    .where('app_id', '=', appId)
    .where('owner', '=', userId)
    .groupBy('bucket_id')
    .execute();
  const shares = new Map<string, BucketShare>();
  const share = (bucketId: string) => shares.get(bucketId) ?? shares.set(bucketId, { bucketId, bytes: 0, objects: 0 }).get(bucketId)!;
  for (const row of committed) {
    const s = share(row.bucket_id);
    s.bytes += Number(row.bytes);
    s.objects += Number(row.n);
  }
  for (const row of reserved) share(row.bucket_id).bytes += Number(row.bytes);
  return [...shares.values()];
}

/**
 * Queues the blobs of the user's objects and uploads for deletion and removes their rows, as a bucket's
 * deletion does (repos/objects.ts deleteBucketContents): the objects' blobs are returned for deletion
 * right after the commit; an upload's queue row is dated `uploadsDueAt`, when no upload can still be
 * writing, and its request, whose commit now finds no upload row, queues and deletes its blob itself.
 */
export async function deleteUserObjects(db: Db, appId: string, userId: string, now: string, uploadsDueAt: string): Promise<QueuedBlob[]> {
  return queueAndDeleteObjects(db, appId, 'owner', userId, now, uploadsDueAt);
}

/** The user's per-bucket usage rows (their per-user cap counters), in the app's buckets. */
export async function deleteUserBucketUsage(db: Db, appId: string, userId: string): Promise<void> {
  await db
    .deleteFrom('bucket_user_usage')
    .where('user_id', '=', userId)
    .where('bucket_id', 'in', db.selectFrom('buckets').select('id').where('app_id', '=', appId))
    .execute();
}

/** A page of the user's objects in (bucket_id, key) order after `after` (an export), each with its bucket's name. */
export async function pageUserObjects(db: Db, appId: string, userId: string, after: [bucketId: string, key: string] | undefined, limit: number) {
  let query = db
    .selectFrom('objects')
    .innerJoin('buckets', 'buckets.id', 'objects.bucket_id')
    .select(['objects.bucket_id', 'buckets.name as bucket_name', 'objects.key', 'objects.size_bytes', 'objects.content_type', 'objects.created_at'])
    .where('objects.app_id', '=', appId)
    .where('objects.owner', '=', userId);
  if (after) {
    const [bucketId, key] = after;
    query = query.where((eb) => eb.or([eb('objects.bucket_id', '>', bucketId), eb.and([eb('objects.bucket_id', '=', bucketId), eb('objects.key', '>', key)])]));
  }
  const rows = await query.orderBy('objects.bucket_id').orderBy('objects.key').limit(rowLimit(limit)).execute();
  return rows.map((r) => ({ ...r, size_bytes: Number(r.size_bytes) }));
}

/**
 * Up to `limit` committed objects of one owner (an organisation's purge: its owner key), by the owner index:
 * their blobs queued for deletion and their rows deleted. Answers them with each one's bucket and size, for the
 * caller to give the bytes back in the same transaction (run under the app's usage lock).
 */
export async function deleteOwnerObjectBatch(db: Db, appId: string, owner: string, now: string, limit: number): Promise<{ blobs: QueuedBlob[]; objects: { bucketId: string; bytes: number }[] }> {
  const batch = await db
    .selectFrom('objects')
    .select(['bucket_id', 'key', 'blob_id', 'size_bytes'])
    .where('app_id', '=', appId)
    .where('owner', '=', owner)
    .orderBy('bucket_id')
    .orderBy('key')
    .limit(rowLimit(limit))
    .execute();
  if (batch.length === 0) return { blobs: [], objects: [] };
  const blobs = await queueBlobDeletions(db, appId, batch.map((o) => o.blob_id), now);
  await db.deleteFrom('objects').where('app_id', '=', appId).where('owner', '=', owner).where('blob_id', 'in', batch.map((o) => o.blob_id)).execute();
  return { blobs, objects: batch.map((o) => ({ bucketId: o.bucket_id, bytes: Number(o.size_bytes) })) };
}
