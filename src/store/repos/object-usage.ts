import type { Db } from '../db.js';

// The app-wide and per-user byte counters. Each change is one conditional write: a positive delta only
// lands while the cap holds, so concurrent uploads can never pass a cap together.

/** Adds `delta` to the app's object storage while it stays within `limit`; false when refused. */
export async function addAppUsage(db: Db, appId: string, delta: number, limit: number): Promise<boolean> {
  await db.insertInto('object_storage_usage').values({ app_id: appId, used_bytes: 0 }).onConflict((oc) => oc.column('app_id').doNothing()).execute();
  let query = db
    .updateTable('object_storage_usage')
    .set((eb) => ({ used_bytes: eb('used_bytes', '+', delta) }))
    .where('app_id', '=', appId);
  if (delta > 0) query = query.where((eb) => eb(eb('used_bytes', '+', delta), '<=', limit));
  const row = await query.returning('app_id').executeTakeFirst();
  return row !== undefined;
}

/** Adds `delta` to one user's bytes in one bucket while it stays within `cap` (null: no cap); false when refused. */
export async function addUserUsage(db: Db, bucketId: string, userId: string, delta: number, cap: number | null): Promise<boolean> {
  await db
    .insertInto('bucket_user_usage')
    .values({ bucket_id: bucketId, user_id: userId, used_bytes: 0 })
    .onConflict((oc) => oc.columns(['bucket_id', 'user_id']).doNothing())
    .execute();
  let query = db
    .updateTable('bucket_user_usage')
    .set((eb) => ({ used_bytes: eb('used_bytes', '+', delta) }))
    .where('bucket_id', '=', bucketId)
    .where('user_id', '=', userId);
  if (delta > 0 && cap !== null) query = query.where((eb) => eb(eb('used_bytes', '+', delta), '<=', cap));
  const row = await query.returning('user_id').executeTakeFirst();
  return row !== undefined;
}

export async function findAppUsage(db: Db, appId: string): Promise<number> {
  const row = await db.selectFrom('object_storage_usage').select('used_bytes').where('app_id', '=', appId).executeTakeFirst();
  return Number(row?.used_bytes ?? 0);
}

/** The app's own object storage limit (`--objects-limit-bytes`), or null to follow OBJECTS_STORAGE_LIMIT_BYTES. */
export async function findAppObjectsLimit(db: Db, appId: string): Promise<number | null> {
  const row = await db.selectFrom('applications').select('objects_limit_bytes').where('id', '=', appId).executeTakeFirst();
  return row?.objects_limit_bytes == null ? null : Number(row.objects_limit_bytes);
}

export async function deleteBucketUserUsage(db: Db, bucketId: string): Promise<void> {
  await db.deleteFrom('bucket_user_usage').where('bucket_id', '=', bucketId).execute();
}
