import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db.js';
import { rowLimit } from '../limit.js';
import type { ObjectRow } from '../types.js';
import { isActiveMember, isLiveOrganization } from './organizations.js';

// Object metadata, uploads in flight and blobs waiting for deletion. Every read is scoped by app id.

export interface StoredObject {
  bucketId: string;
  owner: string;
  key: string;
  blobId: string;
  sizeBytes: number;
  contentType: string;
  etag: string;
  createdAt: string;
  updatedAt: string;
}

export function toObject(row: ObjectRow): StoredObject {
  return {
    bucketId: row.bucket_id,
    owner: row.owner,
    key: row.key,
    blobId: row.blob_id,
    sizeBytes: Number(row.size_bytes),
    contentType: row.content_type,
    etag: row.etag,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The rule an organisation's object is read or written under (docs/organizations.md), checked inside the
 * statement itself: with `member`, that session has the organisation active and its user is a member; without
 * (the secret key), that the organisation is live. A removed member or a deleted organisation reaches nothing.
 */
export interface ObjectGate {
  orgId: string;
  member?: { userId: string; sessionId: string };
}

export interface ObjectAddress {
  appId: string;
  bucketId: string;
  /** A user's id, an organisation's owner key ('org:<id>'), or '' for none. */
  owner: string;
  key: string;
  /** Set for an organisation's object. */
  gate?: ObjectGate;
}

/** SQL true when the gate holds (true without one). */
export function gateHolds(appId: string, gate: ObjectGate | undefined) {
  if (gate === undefined) return sql<boolean>`1 = 1`;
  return gate.member ? isActiveMember(appId, gate.orgId, gate.member.userId, gate.member.sessionId) : isLiveOrganization(appId, gate.orgId);
}

const at = (db: Db, a: ObjectAddress) =>
  db.selectFrom('objects').where('app_id', '=', a.appId).where('bucket_id', '=', a.bucketId).where('owner', '=', a.owner).where('key', '=', a.key);

/** The object at the address, behind its gate. */
export async function findObject(db: Db, address: ObjectAddress): Promise<StoredObject | undefined> {
  const row = await at(db, address).selectAll().$if(address.gate !== undefined, (qb) => qb.where(gateHolds(address.appId, address.gate))).executeTakeFirst();
  return row && toObject(row);
}

/** Deletes the object's row (behind its gate) and returns it (the one caller that removed it), or undefined. */
export async function deleteObjectReturning(db: Db, a: ObjectAddress): Promise<StoredObject | undefined> {
  const row = await db
    .deleteFrom('objects')
    .where('app_id', '=', a.appId)
    .where('bucket_id', '=', a.bucketId)
    .where('owner', '=', a.owner)
    .where('key', '=', a.key)
    .$if(a.gate !== undefined, (qb) => qb.where(gateHolds(a.appId, a.gate)))
    .returningAll()
    .executeTakeFirst();
  return row && toObject(row);
}

/** Inserts the object's row; with a gate, only while it holds (in the same statement). False when it refused. */
export async function insertObject(db: Db, row: ObjectRow, gate?: ObjectGate): Promise<boolean> {
  if (gate === undefined) {
    await db.insertInto('objects').values(row).execute();
    return true;
  }
  return insertGated(db, 'objects', row, gate);
}

/** `insert into table (columns) select values where gate`: the row lands only while the gate holds. */
async function insertGated(db: Db, table: 'objects' | 'object_uploads', row: Record<string, unknown>, gate: ObjectGate): Promise<boolean> {
  const names = Object.keys(row);
  const result = await sql`insert into ${sql.table(table)} (${sql.join(names.map((n) => sql.ref(n)))}) select ${sql.join(names.map((n) => row[n]))} where ${gateHolds(String(row.app_id), gate)}`.execute(db);
  return Number(result.numAffectedRows ?? 0) === 1;
}

/** A page in (key, owner) order after `after`; `owner` undefined lists every owner. */
export async function listObjects(
  db: Db,
  appId: string,
  bucketId: string,
  options: { owner?: string; gate?: ObjectGate; prefix?: string; after?: [string, string]; limit: number },
): Promise<StoredObject[]> {
  let query = db.selectFrom('objects').selectAll().where('app_id', '=', appId).where('bucket_id', '=', bucketId);
  if (options.owner !== undefined) query = query.where('owner', '=', options.owner);
  if (options.gate !== undefined) query = query.where(gateHolds(appId, options.gate));
  if (options.prefix) {
    const prefix = options.prefix;
    // substr/length count characters on both databases; no LIKE, so % and _ in a prefix mean themselves.
    query = query.where((eb) => eb(eb.fn('substr', ['key', eb.val(1), eb.val(prefix.length)]), '=', prefix));
  }
  if (options.after) {
    const [key, owner] = options.after;
    query = query.where((eb) => eb.or([eb('key', '>', key), eb.and([eb('key', '=', key), eb('owner', '>', owner)])]));
  }
  const rows = await query.orderBy('key').orderBy('owner').limit(rowLimit(options.limit)).execute();
  return rows.map(toObject);
}

export async function insertUpload(
  db: Db,
  row: { blob_id: string; app_id: string; bucket_id: string; owner: string; reserved_bytes: number; created_at: string; node_id: string; alive_at: string },
  gate?: ObjectGate,
): Promise<boolean> {
  if (gate !== undefined) return insertGated(db, 'object_uploads', row, gate);
  await db.insertInto('object_uploads').values(row).execute();
  return true;
}

/** The node vouches for its uploads in flight (an index walk over its own rows). */
export async function touchNodeUploads(db: Db, nodeId: string, now: string): Promise<void> {
  await db.updateTable('object_uploads').set({ alive_at: now }).where('node_id', '=', nodeId).execute();
}

/** Uploads no node has vouched for since `before`: their node is gone. */
export async function listOrphanedUploads(db: Db, before: string, limit: number) {
  return db.selectFrom('object_uploads').select(['app_id', 'blob_id']).where('alive_at', '<', before).limit(rowLimit(limit)).execute();
}

/**
 * Ends an upload's reservation: only the one caller that deletes the row gets it back (commit, failure,
 * sweep or bucket deletion). With `orphanedBefore`, only while no node vouched for it since then.
 */
export async function deleteUploadReturning(db: Db, appId: string, blobId: string, orphanedBefore?: string) {
  const row = await db
    .deleteFrom('object_uploads')
    .where('app_id', '=', appId)
    .where('blob_id', '=', blobId)
    .$if(orphanedBefore !== undefined, (qb) => qb.where('alive_at', '<', orphanedBefore!))
    .returningAll()
    .executeTakeFirst();
  return row && { ...row, reserved_bytes: Number(row.reserved_bytes) };
}

/** Uploads begun before `before` (their request is long dead): every app, for the sweep. */
export async function listStaleUploads(db: Db, before: string, limit: number) {
  return db.selectFrom('object_uploads').select(['app_id', 'blob_id']).where('created_at', '<', before).limit(rowLimit(limit)).execute();
}

/**
 * A blob queued for deletion, with the token of the write that queued it: deleteBlobDeletion removes the
 * row only while it still carries that token.
 */
export interface QueuedBlob {
  app_id: string;
  blob_id: string;
  token: string;
}

/** A fresh token for one queueing write (random: a row queued, removed and queued again never repeats one). */
const queueToken = () => randomBytes(12).toString('base64url');

/**
 * Queues the blob for deletion, now: whatever wrote it is done. A blob already queued (an upload's, by a
 * bucket deletion that dated it for when no upload can still be running, and whose deleter may be between
 * its store delete and its row delete) takes this write's token and time, so that deleter leaves the row,
 * and the blob this upload put back, to this write or to the sweep's next pass.
 */
export async function insertBlobDeletion(db: Db, appId: string, blobId: string, now: string): Promise<QueuedBlob> {
  const [queued] = await queueBlobDeletions(db, appId, [blobId], now);
  return queued!;
}

/** Queues several blobs (at least one) for deletion at `now`, under one token (a purge batch: an organisation's, an app's). */
export async function queueBlobDeletions(db: Db, appId: string, blobIds: string[], now: string): Promise<QueuedBlob[]> {
  const token = queueToken();
  await db
    .insertInto('blob_deletions')
    .values(blobIds.map((blob_id) => ({ blob_id, app_id: appId, created_at: now, token })))
    .onConflict((oc) => oc.column('blob_id').doUpdateSet({ token, created_at: now }))
    .execute();
  return blobIds.map((blob_id) => ({ app_id: appId, blob_id, token }));
}

/** Removes the queue row once its blob is deleted, unless another write queued the blob again since it was read. */
export async function deleteBlobDeletion(db: Db, blob: QueuedBlob): Promise<void> {
  await db.deleteFrom('blob_deletions').where('blob_id', '=', blob.blob_id).where('token', '=', blob.token).execute();
}

/** Blobs queued for deletion before `before` (every app, for the sweep). */
export async function listBlobDeletions(db: Db, before: string, limit: number) {
  return db.selectFrom('blob_deletions').select(['app_id', 'blob_id', 'token']).where('created_at', '<', before).limit(rowLimit(limit)).execute();
}

/**
 * Queues every blob of the bucket for deletion and removes the rows of its objects and of its uploads in
 * flight. The objects' blobs are returned, for deletion right after the commit. An upload in flight has
 * no blob yet, or one that its request is about to abandon; but its write may still land one after this,
 * and that request may die before it queues it: so its queue row is dated `uploadsDueAt` (when no upload
 * can still be running), and the sweep deletes whatever landed then, unless the request did first.
 */
export async function deleteBucketContents(db: Db, appId: string, bucketId: string, now: string, uploadsDueAt: string): Promise<QueuedBlob[]> {
  return queueAndDeleteObjects(db, appId, 'bucket_id', bucketId, now, uploadsDueAt);
}

/**
 * Queues the blob of every object and upload of the app whose `column` is `value` for deletion (one token
 * for the batch; an upload's blob not before `uploadsDueAt`), then deletes those rows. A bucket's contents
 * (`bucket_id`) and a user's objects (`owner`, store/repos/user-objects.ts) go this way.
 */
export async function queueAndDeleteObjects(
  db: Db,
  appId: string,
  column: 'bucket_id' | 'owner',
  value: string,
  now: string,
  uploadsDueAt: string,
): Promise<QueuedBlob[]> {
  const token = queueToken();
  for (const [table, createdAt] of [['objects', now], ['object_uploads', uploadsDueAt]] as const) {
    await db
      .insertInto('blob_deletions')
      .columns(['blob_id', 'app_id', 'created_at', 'token'])
      .expression(
        db
          .selectFrom(table)
          .select((eb) => ['blob_id', 'app_id', eb.val(createdAt).as('created_at'), eb.val(token).as('token')])
          .where('app_id', '=', appId)
          .where(column, '=', value),
      )
      .onConflict((oc) => oc.column('blob_id').doUpdateSet({ token }))
      .execute();
  }
  const objects = await db.deleteFrom('objects').where('app_id', '=', appId).where(column, '=', value).returning(['app_id', 'blob_id']).execute();
  await db.deleteFrom('object_uploads').where('app_id', '=', appId).where(column, '=', value).execute();
  return objects.map((blob) => ({ ...blob, token }));
}
