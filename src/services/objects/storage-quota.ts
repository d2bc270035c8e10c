import { ApiError, notFound } from '../../errors.js';
import type { Db } from '../../store/db.js';
import { addBucketUsage } from '../../store/repos/buckets.js';
import { addAppUsage, addUserUsage, findAppObjectsLimit } from '../../store/repos/object-usage.js';

// Moving bytes in and out of the three counters (app, bucket, user in bucket), always in that order so
// that concurrent transactions on PostgreSQL lock rows in one order and cannot deadlock.

/**
 * Takes the app counter's row lock first in a transaction that will delete or replace objects: every
 * such transaction then meets its neighbours on that one row before any object row (on PostgreSQL, a
 * replace racing a replace of the same key otherwise waits on each other's object and counter rows).
 */
export async function lockAppUsage(trx: Db, appId: string): Promise<void> {
  await addAppUsage(trx, appId, 0, 0);
}

export const tooLarge = (detail: string) => new ApiError(413, 'storage_limit_exceeded', detail);

/** The app's object storage limit: its own setting, else OBJECTS_STORAGE_LIMIT_BYTES. */
export async function appObjectsLimit(db: Db, appId: string, fallback: number): Promise<number> {
  return (await findAppObjectsLimit(db, appId)) ?? fallback;
}

export interface UsageTarget {
  appId: string;
  bucketId: string;
  /** User id, an organisation's owner key ('org:<id>', under the per-organisation cap), or '' for none (no cap of its own). */
  owner: string;
  appLimit: number;
}

/**
 * Adds `delta` bytes (and `countDelta` objects) to every counter. A positive delta is checked by each
 * conditional write and throws 413 naming the cap that refused it; run it inside a transaction so a
 * refusal undoes the counters already moved. A missing bucket is 404.
 */
export async function chargeUsage(trx: Db, target: UsageTarget, delta: number, countDelta = 0): Promise<void> {
  if (!(await addAppUsage(trx, target.appId, delta, target.appLimit))) {
    throw tooLarge(`this would pass the application's object storage limit of ${target.appLimit} bytes`);
  }
  const bucket = await addBucketUsage(trx, target.appId, target.bucketId, delta, countDelta);
  if (!bucket) {
    const exists = await trx.selectFrom('buckets').select('id').where('app_id', '=', target.appId).where('id', '=', target.bucketId).executeTakeFirst();
    if (!exists) throw notFound('bucket not found');
    throw tooLarge("this would pass the bucket's max_size_bytes");
  }
  // An organisation's bytes (owner 'org:<id>') are counted on their own row, under max_size_bytes_per_org.
  const org = target.owner.startsWith('org:');
  if (target.owner && !(await addUserUsage(trx, target.bucketId, target.owner, delta, org ? bucket.maxSizeBytesPerOrg : bucket.maxSizeBytesPerUser))) {
    throw tooLarge(org ? "this would pass the bucket's max_size_bytes_per_org for this organization" : "this would pass the bucket's max_size_bytes_per_user for this user");
  }
}

/** Gives bytes back (a failed upload, a deleted object); a bucket already gone is fine. */
export async function releaseUsage(trx: Db, target: Omit<UsageTarget, 'appLimit'>, bytes: number, countDelta = 0): Promise<void> {
  await addAppUsage(trx, target.appId, -bytes, 0);
  await addBucketUsage(trx, target.appId, target.bucketId, -bytes, countDelta);
  if (target.owner) await addUserUsage(trx, target.bucketId, target.owner, -bytes, null);
}
