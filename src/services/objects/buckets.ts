import { addSeconds, iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { conflict, notFound } from '../../errors.js';
import { isUniqueViolation } from '../../store/dialect.js';
import * as buckets from '../../store/repos/buckets.js';
import type { Bucket } from '../../store/repos/buckets.js';
import { addAppUsage, deleteBucketUserUsage, findAppUsage } from '../../store/repos/object-usage.js';
import { deleteBucketContents } from '../../store/repos/objects.js';
import { inTransaction } from '../../store/transaction.js';
import { appObjectsLimit, lockAppUsage } from './storage-quota.js';
import { deleteBlobsNow } from './blob-deletion.js';
import { UPLOAD_TIMEOUT_SECONDS } from './upload-sweep.js';

export type { Bucket };

export type BucketDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'blobs' | 'log'>;

/** Creates a bucket; 409 when the app already has one of that name. */
export async function createBucket(deps: BucketDeps, appId: string, name: string): Promise<Bucket> {
  const now = iso(deps.clock.now());
  const row = {
    id: newUuid(),
    app_id: appId,
    name,
    max_size_bytes: null,
    max_size_bytes_per_user: null,
    max_size_bytes_per_org: null,
    used_bytes: 0,
    object_count: 0,
    created_at: now,
    updated_at: now,
  };
  try {
    await buckets.insertBucket(deps.db, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`a bucket named ${name} already exists`);
    throw error;
  }
  return buckets.toBucket(row);
}

/** The app's bucket; 404 for an unknown id or another app's. */
export async function getBucket(deps: Pick<Deps, 'db'>, appId: string, bucketId: string): Promise<Bucket> {
  const bucket = await buckets.findBucket(deps.db, appId, bucketId);
  if (!bucket) throw notFound('bucket not found');
  return bucket;
}

export const listBuckets = (deps: Pick<Deps, 'db'>, appId: string) => buckets.listBuckets(deps.db, appId);

export interface CapChanges {
  max_size_bytes?: number | null;
  max_size_bytes_per_user?: number | null;
  max_size_bytes_per_org?: number | null;
}

/** Sets any of the caps; an omitted field stays, null removes it. Lowering below usage refuses later writes only. */
export async function updateBucketCaps(deps: BucketDeps, appId: string, bucketId: string, changes: CapChanges): Promise<Bucket> {
  const update: Parameters<typeof buckets.updateBucket>[3] = { updated_at: iso(deps.clock.now()) };
  if (changes.max_size_bytes !== undefined) update.max_size_bytes = changes.max_size_bytes;
  if (changes.max_size_bytes_per_user !== undefined) update.max_size_bytes_per_user = changes.max_size_bytes_per_user;
  if (changes.max_size_bytes_per_org !== undefined) update.max_size_bytes_per_org = changes.max_size_bytes_per_org;
  if (!(await buckets.updateBucket(deps.db, appId, bucketId, update))) throw notFound('bucket not found');
  return getBucket(deps, appId, bucketId);
}

/**
 * Deletes the bucket, its objects and uploads in flight in one transaction, gives their bytes back to
 * the app, then removes the objects' blobs (queued in blob_deletions, so the sweep finishes if this node
 * dies). A blob an upload in flight writes later is deleted by that upload's request, or by the sweep
 * once no upload can still be running (deleteBucketContents).
 */
export async function deleteBucket(deps: BucketDeps, appId: string, bucketId: string): Promise<void> {
  const blobs = await inTransaction(deps.db, async (trx) => {
    await lockAppUsage(trx, appId);
    const now = deps.clock.now();
    const contents = await deleteBucketContents(trx, appId, bucketId, iso(now), iso(addSeconds(now, UPLOAD_TIMEOUT_SECONDS)));
    const removed = await buckets.deleteBucketReturning(trx, appId, bucketId);
    if (!removed) throw notFound('bucket not found');
    await addAppUsage(trx, appId, -removed.used_bytes, 0);
    await deleteBucketUserUsage(trx, bucketId);
    return contents;
  });
  await deleteBlobsNow(deps, blobs);
}

export interface StorageUsage {
  used_bytes: number;
  limit_bytes: number;
  used_percent: number;
  buckets: { bucket_id: string; name: string; used_bytes: number; object_count: number }[];
}

/** The app's object storage: bytes used (uploads in flight included), its limit, and each bucket. */
export async function objectStorageUsage(deps: BucketDeps, appId: string): Promise<StorageUsage> {
  const [used, limit, list] = await Promise.all([
    findAppUsage(deps.db, appId),
    appObjectsLimit(deps.db, appId, deps.config.objectsStorageLimitBytes),
    buckets.listBuckets(deps.db, appId),
  ]);
  const percent = limit === 0 ? (used > 0 ? 100 : 0) : Math.min(100, Math.round((used / limit) * 10_000) / 100);
  return {
    used_bytes: used,
    limit_bytes: limit,
    used_percent: percent,
    buckets: list.map((b) => ({ bucket_id: b.id, name: b.name, used_bytes: b.usedBytes, object_count: b.objectCount })),
  };
}
