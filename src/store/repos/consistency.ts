import { sql } from 'kysely';
import type { Db } from '../db.js';
import { rowLimit } from '../limit.js';

// What `gatehouse doctor` reads (services/doctor.ts): every app's object rows against the blob store, and
// each kept counter against the sum it keeps. Operator reads over every app, as the sweep's are; none writes.

export interface ObjectBlobRow {
  app_id: string;
  bucket_id: string;
  key: string;
  blob_id: string;
}

/** A page of object rows (every app) in blob id order, after `afterBlobId`. */
export async function listObjectBlobs(db: Db, afterBlobId: string, limit: number): Promise<ObjectBlobRow[]> {
  return db.selectFrom('objects').select(['app_id', 'bucket_id', 'key', 'blob_id']).where('blob_id', '>', afterBlobId).orderBy('blob_id').limit(rowLimit(limit)).execute();
}

/** Which of `blobIds` a row still names: an object, an upload in flight, or the deletion queue. */
export async function findReferencedBlobIds(db: Db, blobIds: string[]): Promise<Set<string>> {
  if (blobIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('objects')
    .select('blob_id')
    .where('blob_id', 'in', blobIds)
    .union(db.selectFrom('object_uploads').select('blob_id').where('blob_id', 'in', blobIds))
    .union(db.selectFrom('blob_deletions').select('blob_id').where('blob_id', 'in', blobIds))
    .execute();
  return new Set(rows.map((row) => row.blob_id));
}

export interface CounterDrift {
  counter: 'bucket_bytes' | 'bucket_objects' | 'app_bytes' | 'user_bytes' | 'app_users';
  app_id: string;
  /** The bucket (bucket counters, a user's bytes in a bucket) or the user (a user's bytes). */
  bucket_id?: string;
  user_id?: string;
  kept: number;
  sum: number;
}

type Totals = { kept: number | string | null; actual: number | string | null };
const n = (value: number | string | null) => Number(value ?? 0);

/**
 * Every kept counter that differs from the sum it keeps: a bucket's used_bytes (its objects' sizes and its
 * uploads' reservations) and object_count, an app's object_storage_usage, a user's bytes in a bucket, and
 * an app's user_counts against its users rows.
 */
export async function findCounterDrift(db: Db): Promise<CounterDrift[]> {
  const found: CounterDrift[] = [];
  const buckets = await sql<{ app_id: string; bucket_id: string; kept_bytes: number | string; bytes: number | string; kept_count: number | string; objects: number | string }>`
    select app_id, bucket_id, sum(kept_bytes) as kept_bytes, sum(bytes) as bytes, sum(kept_count) as kept_count, sum(objects) as objects from (
      select app_id, id as bucket_id, used_bytes as kept_bytes, 0 as bytes, object_count as kept_count, 0 as objects from buckets
      union all select app_id, bucket_id, 0, size_bytes, 0, 1 from objects
      union all select app_id, bucket_id, 0, reserved_bytes, 0, 0 from object_uploads
    ) t group by app_id, bucket_id
    having sum(kept_bytes) <> sum(bytes) or sum(kept_count) <> sum(objects)`.execute(db);
  for (const row of buckets.rows) {
    if (n(row.kept_bytes) !== n(row.bytes)) found.push({ counter: 'bucket_bytes', app_id: row.app_id, bucket_id: row.bucket_id, kept: n(row.kept_bytes), sum: n(row.bytes) });
    if (n(row.kept_count) !== n(row.objects)) found.push({ counter: 'bucket_objects', app_id: row.app_id, bucket_id: row.bucket_id, kept: n(row.kept_count), sum: n(row.objects) });
  }
  const apps = await sql<{ app_id: string } & Totals>`
    select app_id, sum(kept) as kept, sum(actual) as actual from (
      select app_id, used_bytes as kept, 0 as actual from object_storage_usage
      union all select app_id, 0, size_bytes from objects
      union all select app_id, 0, reserved_bytes from object_uploads
    ) t group by app_id having sum(kept) <> sum(actual)`.execute(db);
  for (const row of apps.rows) found.push({ counter: 'app_bytes', app_id: row.app_id, kept: n(row.kept), sum: n(row.actual) });
  const users = await sql<{ app_id: string; bucket_id: string; user_id: string } & Totals>`
    select max(app_id) as app_id, bucket_id, user_id, sum(kept) as kept, sum(actual) as actual from (
      select null as app_id, bucket_id, user_id, used_bytes as kept, 0 as actual from bucket_user_usage
      union all select app_id, bucket_id, owner, 0, size_bytes from objects where owner <> ''
      union all select app_id, bucket_id, owner, 0, reserved_bytes from object_uploads where owner <> ''
    ) t group by bucket_id, user_id having sum(kept) <> sum(actual)`.execute(db);
  for (const row of users.rows) found.push({ counter: 'user_bytes', app_id: row.app_id ?? '', bucket_id: row.bucket_id, user_id: row.user_id, kept: n(row.kept), sum: n(row.actual) });
  const counts = await sql<{ app_id: string } & Totals>`
    select app_id, sum(kept) as kept, sum(actual) as actual from (
      select app_id, users as kept, 0 as actual from user_counts
      union all select app_id, 0, 1 from users
    ) t group by app_id having sum(kept) <> sum(actual)`.execute(db);
  for (const row of counts.rows) found.push({ counter: 'app_users', app_id: row.app_id, kept: n(row.kept), sum: n(row.actual) });
  return found;
}
