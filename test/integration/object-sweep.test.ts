import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSeconds, iso, type Clock } from '../../src/clock.js';
import type { BlobStore } from '../../src/blobs/store.js';
import type { Deps } from '../../src/deps.js';
import { createApp, createTenant } from '../../src/services/apps/apps.js';
import { createBucket, deleteBucket, objectStorageUsage } from '../../src/services/objects/buckets.js';
import { pruneExpiredRows } from '../../src/services/maintenance.js';
import { UPLOAD_TIMEOUT_SECONDS } from '../../src/services/objects/upload-sweep.js';
import { putObject } from '../../src/services/objects/objects.js';
import { insertBlobDeletion } from '../../src/store/repos/objects.js';
import { openInProcess } from '../helpers/in-process.js';

// The orphan sweep in-process, on the run's database and a file blob store, with a clock the test moves:
// what a node that died mid-upload or right after a commit leaves behind is cleaned by the maintenance job.
let deps: Deps;
let dir: string;
let close: (() => Promise<void>) | undefined;
let now = new Date('2026-01-01T00:00:00.000Z');
const clock: Clock = { now: () => now };

beforeAll(async () => {
  ({ deps, dir, close } = await openInProcess(clock, (dir) => ({ BLOB_STORE: `file:${join(dir, 'blobs')}` })));
});
afterAll(async () => {
  await close?.();
});

describe('object storage sweep (maintenance)', () => {
  it('an upload whose node died gives its reservation back after the upload timeout, once', async () => {
    const appsDeps = { db: deps.db, clock, keys: deps.keys, hashcashEnabled: false };
    const app = await createApp(appsDeps, (await createTenant(appsDeps, 'T')).tenant_id, 'A', {});
    const bucket = await createBucket(deps, app.app_id, 'b');
    // A body that stops arriving: the upload stays in flight as if its node had died.
    const body = new PassThrough();
    body.write(Buffer.alloc(100));
    const pending = putObject(deps, { appId: app.app_id, bucketId: bucket.id, owner: '', key: 'k' }, { contentType: 'text/plain', size: 5000, body });
    await expect.poll(async () => (await objectStorageUsage(deps, app.app_id)).used_bytes).toBe(5000);

    expect(await pruneExpiredRows(deps)).toMatchObject({ ran: true, stale_uploads: 0 });
    now = addSeconds(now, 2 * 3600);
    expect(await pruneExpiredRows(deps)).toMatchObject({ ran: true, stale_uploads: 1 });
    const usage = await objectStorageUsage(deps, app.app_id);
    expect(usage.used_bytes).toBe(0);
    expect(usage.buckets[0]).toMatchObject({ used_bytes: 0, object_count: 0 });

    // The request ends after all: its failure must not give the bytes back a second time.
    body.destroy(new Error('client gone'));
    await expect(pending).rejects.toThrow();
    expect((await objectStorageUsage(deps, app.app_id)).used_bytes).toBe(0);
    expect(await deps.db.selectFrom('objects').selectAll().execute()).toEqual([]);
  });

  it('a blob queued for deletion by a commit whose node died is deleted by the sweep', async () => {
    const appId = 'app_sweeptest';
    const blobId = randomUUID();
    await deps.blobs.put(`${appId}/${blobId}`, Readable.from([Buffer.from('orphan')]), 6);
    const path = join(dir, 'blobs', appId, blobId);
    expect(existsSync(path)).toBe(true);
    await insertBlobDeletion(deps.db, appId, blobId, iso(now));
    expect((await pruneExpiredRows(deps)).orphan_blobs).toBe(0); // within the grace: the committing node deletes it
    now = addSeconds(now, 120);
    expect((await pruneExpiredRows(deps)).orphan_blobs).toBe(1);
    expect(existsSync(path)).toBe(false);
    expect(await deps.db.selectFrom('blob_deletions').selectAll().execute()).toEqual([]);
  });

  it('an upload that cannot commit, whose blob the store then fails to delete, leaves it queued for the sweep', async () => {
    const { app, bucket, failing, body, pending } = await uploadHalfway();
    // The bucket goes while the body is still arriving: its deletion finds no blob yet. Then the body
    // ends, the blob lands, the commit finds no bucket, and the store refuses the clean-up delete.
    await deleteBucket(deps, app.app_id, bucket.id);
    failing.fail = true;
    body.end(Buffer.alloc(100));
    await expect(pending).rejects.toMatchObject({ status: 404 });
    const blobs = await deps.db.selectFrom('blob_deletions').select(['app_id', 'blob_id']).where('app_id', '=', app.app_id).execute();
    expect(blobs).toHaveLength(1);
    const path = join(dir, 'blobs', app.app_id, blobs[0]!.blob_id);
    expect(existsSync(path)).toBe(true);

    failing.fail = false;
    now = addSeconds(now, 120);
    expect((await pruneExpiredRows(deps)).orphan_blobs).toBe(1);
    expect(existsSync(path)).toBe(false);
    expect(await deps.db.selectFrom('blob_deletions').selectAll().where('app_id', '=', app.app_id).execute()).toEqual([]);
  });

  it('a blob an upload writes after its bucket was deleted is deleted by the sweep once no upload can still run', async () => {
    // The node running the upload dies once its write has landed: nothing but the sweep is left to delete it.
    const { app, bucket, blobId } = await uploadLeftByDeadNode();
    await deleteBucket(deps, app.app_id, bucket.id);
    await deps.blobs.put(`${app.app_id}/${blobId}`, Readable.from([Buffer.from('landed late')]), 11);
    const path = join(dir, 'blobs', app.app_id, blobId);

    now = addSeconds(now, 120);
    expect((await pruneExpiredRows(deps)).orphan_blobs).toBe(0); // the upload may still be running
    expect(existsSync(path)).toBe(true);
    now = addSeconds(now, UPLOAD_TIMEOUT_SECONDS);
    expect((await pruneExpiredRows(deps)).orphan_blobs).toBe(1);
    expect(existsSync(path)).toBe(false);
    expect(await deps.db.selectFrom('blob_deletions').selectAll().where('app_id', '=', app.app_id).execute()).toEqual([]);
  });

  it('a blob queued again while the sweep is between its store delete and its row delete stays queued', async () => {
    const { app, bucket, failing, body, pending } = await uploadHalfway();
    await deleteBucket(deps, app.app_id, bucket.id);
    // An hour on, the upload's request still runs. The sweep takes its blob's queue row (no blob yet),
    // deletes it from the store, and stalls before removing the row. Meanwhile the body ends, the blob
    // lands, the commit finds no bucket, the upload queues the blob again and the store refuses its
    // delete. Then the sweep goes on.
    now = addSeconds(now, UPLOAD_TIMEOUT_SECONDS + 120);
    let reached!: () => void;
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const stalling = Object.assign(Object.create(deps.blobs) as BlobStore, {
      delete: async (name: string) => {
        await deps.blobs.delete(name);
        reached();
        await gate;
      },
    });
    const sweep = pruneExpiredRows({ ...deps, blobs: stalling });
    await atGate;
    failing.fail = true;
    body.end(Buffer.alloc(100));
    await expect(pending).rejects.toMatchObject({ status: 404 });
    release();
    await sweep;

    const queued = await deps.db.selectFrom('blob_deletions').select(['blob_id']).where('app_id', '=', app.app_id).execute();
    expect(queued).toHaveLength(1);
    const path = join(dir, 'blobs', app.app_id, queued[0]!.blob_id);
    expect(existsSync(path)).toBe(true);
    failing.fail = false;
    now = addSeconds(now, 120);
    expect((await pruneExpiredRows(deps)).orphan_blobs).toBe(1);
    expect(existsSync(path)).toBe(false);
    expect(await deps.db.selectFrom('blob_deletions').selectAll().where('app_id', '=', app.app_id).execute()).toEqual([]);
  });

  it('a stale upload whose blob the store fails to delete leaves it queued for the next sweep', async () => {
    const { app, bucket, blobId } = await uploadLeftByDeadNode();
    await deps.blobs.put(`${app.app_id}/${blobId}`, Readable.from([Buffer.from('left by a dead node')]), 19);
    const path = join(dir, 'blobs', app.app_id, blobId);
    now = addSeconds(now, 2 * 3600);
    const failing = failingDeletes(deps.blobs);
    failing.fail = true;
    expect(await pruneExpiredRows({ ...deps, blobs: failing.store })).toMatchObject({ stale_uploads: 1 });
    expect(existsSync(path)).toBe(true);

    now = addSeconds(now, 120);
    expect((await pruneExpiredRows(deps)).orphan_blobs).toBe(1);
    expect(existsSync(path)).toBe(false);
  });

  it('temporary files of a write cut by a crash (file store) are deleted once older than the upload timeout', async () => {
    const temp = join(dir, 'blobs', '.tmp', randomUUID());
    mkdirSync(dirname(temp), { recursive: true });
    writeFileSync(temp, 'partial');
    now = new Date(Date.now() + 10 * 60_000);
    expect((await pruneExpiredRows(deps)).orphan_blobs).toBe(0);
    expect(existsSync(temp)).toBe(true);
    now = new Date(Date.now() + 2 * 3600_000);
    expect((await pruneExpiredRows(deps)).orphan_blobs).toBe(1);
    expect(existsSync(temp)).toBe(false);
  });
});

/**
 * A new app and bucket, and a 200-byte upload into it whose body has brought half: the upload is in
 * flight. Its store fails deletes while `failing.fail` is set.
 */
async function uploadHalfway() {
  const appsDeps = { db: deps.db, clock, keys: deps.keys, hashcashEnabled: false };
  const app = await createApp(appsDeps, (await createTenant(appsDeps, 'T')).tenant_id, 'A', {});
  const bucket = await createBucket(deps, app.app_id, 'b');
  const failing = failingDeletes(deps.blobs);
  const body = new PassThrough();
  body.write(Buffer.alloc(100));
  const pending = putObject({ ...deps, blobs: failing.store }, { appId: app.app_id, bucketId: bucket.id, owner: '', key: 'k' }, { contentType: 'text/plain', size: 200, body });
  // Not awaited here: the caller decides how the upload ends.
  pending.catch(() => {});
  await expect.poll(async () => (await objectStorageUsage(deps, app.app_id)).used_bytes).toBe(200);
  return { app, bucket, failing, body, pending };
}

/** A new app and bucket, and an upload row in it as a node that died mid-upload leaves it (no blob yet). */
async function uploadLeftByDeadNode() {
  const appsDeps = { db: deps.db, clock, keys: deps.keys, hashcashEnabled: false };
  const app = await createApp(appsDeps, (await createTenant(appsDeps, 'T')).tenant_id, 'A', {});
  const bucket = await createBucket(deps, app.app_id, 'b');
  const blobId = randomUUID();
  await deps.db
    .insertInto('object_uploads')
    .values({ blob_id: blobId, app_id: app.app_id, bucket_id: bucket.id, owner: '', reserved_bytes: 0, created_at: iso(now) })
    .execute();
  return { app, bucket, blobId };
}

/** The store, with deletes that fail while `fail` is set (an S3 outage, a read-only disk). */
function failingDeletes(store: BlobStore) {
  const control = {
    fail: false,
    store: Object.assign(Object.create(store) as BlobStore, {
      delete: async (name: string) => {
        if (control.fail) throw new Error('store unavailable');
        await store.delete(name);
      },
    }),
  };
  return control;
}
