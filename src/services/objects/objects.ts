import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { BodyLengthError } from '../../blobs/exact-length.js';
import type { ByteRange } from '../../blobs/store.js';
import { iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { ApiError, badRequest, notFound } from '../../errors.js';
import { isUniqueViolation } from '../../store/dialect.js';
import { findBucket } from '../../store/repos/buckets.js';
import { orgOfOwnerKey, orgOwnerKey } from '../../store/repos/organizations.js';
import { lockUser } from '../../store/repos/users.js';
import * as objects from '../../store/repos/objects.js';
import type { ObjectAddress, QueuedBlob, StoredObject } from '../../store/repos/objects.js';
import { inTransaction } from '../../store/transaction.js';
import { decodePairCursor, encodePairCursor } from '../pair-cursor.js';
import { blobName, deleteBlobsNow } from './blob-deletion.js';
import { appObjectsLimit, chargeUsage, lockAppUsage, releaseUsage, tooLarge, type UsageTarget } from './storage-quota.js';

export type { ObjectAddress, ObjectGate, StoredObject } from '../../store/repos/objects.js';

export type ObjectDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'blobs' | 'log' | 'nodeId'> & { store: Pick<Deps['store'], 'dialect'> };

export interface Upload {
  contentType: string;
  /** The declared Content-Length: checked against every cap before a byte is read. */
  size: number;
  body: Readable;
}

/**
 * An organisation's objects (docs/organizations.md): owned by its owner key, behind the gate every statement
 * on them checks; a session's `member` gate holds while that session has the organisation active and its user
 * is a member, the secret key's while the organisation is live.
 */
export const organizationOwner = (orgId: string, member?: { userId: string; sessionId: string }) => ({ owner: orgOwnerKey(orgId), gate: { orgId, member } });

/** The owner fields of an object's record: a user's id, or an organisation's id (user_id null), or neither. */
export function ownerIds(owner: string): { user_id: string | null; organization_id: string | null } {
  const org = orgOfOwnerKey(owner);
  return { user_id: owner === '' || org !== null ? null : owner, organization_id: org };
}

/** Hashes bytes on their way through (the ETag), without holding them. */
function md5Through(): { stream: Transform; digest: () => string } {
  const hash = createHash('md5');
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, digest: () => `"${hash.digest('hex')}"` };
}

/**
 * Stores an object: reserves its bytes against the three caps (one conditional write each), streams the
 * body to a new blob, then commits the metadata, which makes it visible. An overwrite counts only its size
 * difference. Any failure releases the reservation and deletes the blob: no object, no blob, no usage.
 */
export async function putObject(deps: ObjectDeps, address: ObjectAddress, upload: Upload): Promise<StoredObject> {
  if (upload.size > deps.config.objectsMaxBytes) {
    throw new ApiError(413, 'body_too_large', `objects are at most ${deps.config.objectsMaxBytes} bytes (OBJECTS_MAX_BYTES)`);
  }
  if (!(await findBucket(deps.db, address.appId, address.bucketId))) throw notFound('bucket not found');
  const target: UsageTarget & ObjectAddress = { ...address, appLimit: await appObjectsLimit(deps.db, address.appId, deps.config.objectsStorageLimitBytes) };
  // An estimate of what an overwrite replaces; the commit corrects it against the row it really replaces.
  const previous = await objects.findObject(deps.db, address);
  const reserved = Math.max(0, upload.size - (previous?.sizeBytes ?? 0));
  const blobId = newUuid();
  const now = iso(deps.clock.now());
  await inTransaction(deps.db, async (trx) => {
    // The owner must exist when the upload starts: a user deleted meanwhile leaves no object or usage (lockUser).
    // An organisation's object: its gate is a condition of the upload's row (a non-member reserves nothing).
    if (address.owner !== '' && !address.gate && !(await lockUser(trx, deps.store.dialect, address.appId, address.owner, 'share'))) throw notFound('user not found');
    // This node vouches for the upload while it runs; if the node dies, another releases it (upload-sweep.ts).
    const started = await objects.insertUpload(trx, {
      blob_id: blobId,
      app_id: address.appId,
      bucket_id: address.bucketId,
      owner: address.owner,
      reserved_bytes: reserved,
      created_at: now,
      node_id: deps.nodeId,
      alive_at: now,
    }, address.gate);
    if (!started) throw notFound('organization not found');
    await chargeUsage(trx, target, reserved);
  });

  const name = blobName(address.appId, blobId);
  const hashing = md5Through();
  // pipe, not pipeline: a store that fails must not destroy the request, which would destroy its socket
  // and cut the 503 on its way to a client still sending (the route drains the body, then answers). A
  // failure of the request itself (the client gone) still fails the write.
  upload.body.once('error', (error) => hashing.stream.destroy(error));
  upload.body.pipe(hashing.stream);
  let committed: { object: StoredObject; replaced?: QueuedBlob };
  try {
    await deps.blobs.put(name, hashing.stream, upload.size).catch((error: unknown) => {
      throw blobWriteFailure(error, upload);
    });
    committed = await commitUpload(deps, target, blobId, reserved, upload, hashing.digest());
  } catch (error) {
    upload.body.unpipe(hashing.stream);
    // The reservation goes back before the answer; the blob's deletion runs after it (a store that just
    // failed or timed out would only delay the answer; the queue row keeps it for the sweep).
    const queued = await abandonUpload(deps, address, blobId).catch((e) => {
      deps.log.error({ err: e, blob_id: blobId }, 'releasing a failed upload failed; the sweep will');
      return undefined;
    });
    if (queued) void deleteBlobsNow(deps, [queued]);
    throw error;
  }
  if (committed.replaced) await deleteBlobsNow(deps, [committed.replaced]);
  return committed.object;
}

/**
 * Why a blob write failed, as the client is told: its own body, cut short (the client went away: Node
 * destroys the request with its "aborted" ECONNRESET) or longer than its Content-Length, is 400; anything
 * else is the blob store's fault (S3 unreachable or resetting the connection, a full disk), 503 to retry,
 * with the cause in the log. The request's own error decides, not its state: a store that fails
 * mid-body destroys the request too (pipeline), with the store's error. Nor is a reset of the store's
 * connection the database's outage.
 */
function blobWriteFailure(error: unknown, upload: Upload): ApiError {
  if (error instanceof BodyLengthError || isClientAbort(upload.body.errored)) {
    return badRequest(`the body did not carry its Content-Length of ${upload.size} bytes`);
  }
  return blobStoreUnavailable('the object store did not take the upload; retry shortly', error);
}

/** The error Node's HTTP server destroys a request with when its client goes away mid-body. */
const isClientAbort = (error: unknown) => error instanceof Error && (error as NodeJS.ErrnoException).code === 'ECONNRESET' && error.message === 'aborted';

/** A blob gone from the store: no file (file store), NoSuchKey (S3). */
const isMissingBlob = (error: unknown) => (error as { code?: string }).code === 'ENOENT' || (error as { name?: string }).name === 'NoSuchKey';

/** An outage of the store: one rate-limited warning per cause with the store's own error (http/plugins/unavailable.ts). */
const blobStoreUnavailable = (detail: string, cause: unknown) =>
  new ApiError(503, 'blob_store_unavailable', detail, { cause, headers: { 'retry-after': '5' }, outage: true });

/** Makes the upload visible: replaces any object at the address and settles the usage, retrying a lost race. */
async function commitUpload(deps: ObjectDeps, target: UsageTarget & ObjectAddress, blobId: string, reserved: number, upload: Upload, etag: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(deps.db, async (trx) => {
        await lockAppUsage(trx, target.appId);
        const mine = await objects.deleteUploadReturning(trx, target.appId, blobId);
        // The bucket or the owner was deleted (or the sweep ended the upload): their deletion queued the blob.
        if (!mine) throw notFound(target.owner === '' ? 'bucket not found' : 'bucket or user not found');
        const replaced = await objects.deleteObjectReturning(trx, { ...target, gate: undefined });
        const adjust = upload.size - (replaced?.sizeBytes ?? 0) - reserved;
        await chargeUsage(trx, target, adjust, replaced ? 0 : 1);
        const now = iso(deps.clock.now());
        const queued = replaced && (await objects.insertBlobDeletion(trx, target.appId, replaced.blobId, now));
        const row = {
          bucket_id: target.bucketId,
          owner: target.owner,
          key: target.key,
          app_id: target.appId,
          blob_id: blobId,
          size_bytes: upload.size,
          content_type: upload.contentType,
          etag,
          created_at: replaced?.createdAt ?? now,
          updated_at: now,
        };
        // The gate again, in the write that makes the object visible: a member removed meanwhile stores nothing.
        if (!(await objects.insertObject(trx, row, target.gate))) throw notFound('organization not found');
        return { object: objects.toObject(row), replaced: queued };
      });
    } catch (error) {
      // Two commits to one address at once on PostgreSQL: the later insert meets the earlier row; run again.
      if (isUniqueViolation(error) && attempt < 5) continue;
      throw error;
    }
  }
}

/**
 * Ends an upload that will not commit: its reservation goes back (once) and its blob is queued for
 * deletion in the same transaction (returned, for the caller to delete; a store that fails the delete
 * leaves the queue row to the sweep). The upload row may be gone already: a bucket deletion or the sweep took it (and queued
 * the blob, perhaps before this write landed it: it is queued again), or the commit did land and only
 * its answer was lost, in which case the object at the address holds this blob and it stays.
 */
async function abandonUpload(deps: ObjectDeps, address: ObjectAddress, blobId: string): Promise<QueuedBlob | undefined> {
  return inTransaction(deps.db, async (trx) => {
    await lockAppUsage(trx, address.appId);
    const upload = await objects.deleteUploadReturning(trx, address.appId, blobId);
    if (upload) await releaseUsage(trx, address, upload.reserved_bytes);
    else if ((await objects.findObject(trx, { ...address, gate: undefined }))?.blobId === blobId) return undefined;
    return objects.insertBlobDeletion(trx, address.appId, blobId, iso(deps.clock.now()));
  });
}

/** The object's metadata; 404 when there is none at the address. */
export async function headObject(deps: Pick<Deps, 'db'>, address: ObjectAddress): Promise<StoredObject> {
  const object = await objects.findObject(deps.db, address);
  if (!object) throw notFound('object not found');
  return object;
}

/** The object's bytes (or a range of them) as a stream from the blob store; 503 when the store fails to open them. */
export async function openObject(deps: Pick<Deps, 'blobs'>, appId: string, object: StoredObject, range?: ByteRange): Promise<Readable> {
  try {
    return await deps.blobs.get(blobName(appId, object.blobId), range);
  } catch (cause) {
    // The object was overwritten or deleted between reading its row and opening its blob.
    if (isMissingBlob(cause)) throw notFound('object not found');
    throw blobStoreUnavailable('the object store did not answer; retry shortly', cause);
  }
}

/** Deletes the object, gives its bytes back, then removes its blob; 404 when there is none. */
export async function deleteObject(deps: ObjectDeps, address: ObjectAddress): Promise<void> {
  const removed = await inTransaction(deps.db, async (trx) => {
    await lockAppUsage(trx, address.appId);
    const row = await objects.deleteObjectReturning(trx, address);
    if (!row) throw notFound('object not found');
    await releaseUsage(trx, address, row.sizeBytes, -1);
    return objects.insertBlobDeletion(trx, address.appId, row.blobId, iso(deps.clock.now()));
  });
  await deleteBlobsNow(deps, [removed]);
}

export interface ListOptions {
  owner?: string;
  gate?: objects.ObjectGate;
  prefix?: string;
  cursor?: string;
  limit: number;
}

const encodeCursor = (o: StoredObject) => encodePairCursor(o.key, o.owner);

/** A page of the bucket's objects in key order; the cursor is the last (key, owner) seen, so inserts never shift pages. */
export async function listObjects(deps: Pick<Deps, 'db'>, appId: string, bucketId: string, options: ListOptions) {
  if (!(await findBucket(deps.db, appId, bucketId))) throw notFound('bucket not found');
  const after = options.cursor ? decodePairCursor(options.cursor) : undefined;
  const rows = await objects.listObjects(deps.db, appId, bucketId, { owner: options.owner, gate: options.gate, prefix: options.prefix, after, limit: options.limit + 1 });
  const page = rows.slice(0, options.limit);
  return { objects: page, nextCursor: rows.length > options.limit ? encodeCursor(page[page.length - 1]) : null };
}

export { tooLarge };
