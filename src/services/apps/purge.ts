import { hostname } from 'node:os';
import { addSeconds, iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import * as applications from '../../store/repos/applications.js';
import * as purge from '../../store/repos/app-purge.js';
import { acquireJobLock, findJobLock, releaseJobLock, renewJobLock, takeJobLockFrom } from '../../store/repos/job-locks.js';
import { inTransaction } from '../../store/transaction.js';
import { deleteBlobsNow, deleteQueuedBlobs } from '../objects/blob-deletion.js';
import { UPLOAD_TIMEOUT_SECONDS } from '../objects/upload-sweep.js';
import { runEvery } from '../schedule.js';

// The second half of deleting an app (docs/operations.md and docs/privacy.md): the app is already marked deleted
// (services/apps/deletion.ts), so nothing reaches its data; this removes that data in bounded batches, each
// its own short transaction, so no statement or lock lasts long whatever the app's size. Every step is
// idempotent and the app's row goes last: a purge cut by a crash simply runs again from the top, on the
// next run of the job on any node, or by the CLI.

export const PURGE_JOB = 'purge-deleted-apps';
const LEASE_SECONDS = 60;
const RENEW_AFTER_MS = 15_000;
const PURGE_EVERY_MS = 30_000;

export type PurgeDeps = Pick<Deps, 'db' | 'clock' | 'log' | 'blobs' | 'tableMetadata'> & { config: Pick<Deps['config'], 'appPurgeBatchSize' | 'blobDeletionGraceSeconds'> };

/** Rows (or tables, objects, blobs) removed, by what they were. */
export type PurgeCounts = Record<string, number>;

export interface PurgeReport {
  /** False when another process holds the job's lease (it is purging). */
  ran: boolean;
  apps: { app_id: string; removed: PurgeCounts }[];
}

export interface PurgeOptions {
  /** Rows a statement removes (default APP_PURGE_BATCH_SIZE). */
  batchSize?: number;
  /** Called after each batch that removed something, with the running total of that step. */
  onProgress?: (appId: string, step: string, total: number) => void;
}

/** The lease of the purge job for one run: renewed as batches go, so a dead holder's lease soon runs out. */
class Lease {
  private renewedAt = Date.now();
  constructor(
    private readonly deps: PurgeDeps,
    readonly holder: string,
  ) {}

  async renew(): Promise<void> {
    if (Date.now() - this.renewedAt < RENEW_AFTER_MS) return;
    const until = iso(addSeconds(this.deps.clock.now(), LEASE_SECONDS));
    if (!(await renewJobLock(this.deps.db, PURGE_JOB, this.holder, until))) throw new Error('the purge lease was lost; another node continues');
    this.renewedAt = Date.now();
  }
}

const newHolder = () => `${hostname()}:${process.pid}:${newUuid()}`;

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the job's lease. A lease held by a process of this host that is no longer running (a CLI killed
 * mid-purge) is taken over at once rather than after it runs out: the restarted command goes on.
 */
async function takeLease(deps: PurgeDeps, holder: string): Promise<Lease | undefined> {
  const now = deps.clock.now();
  const until = iso(addSeconds(now, LEASE_SECONDS));
  if (await acquireJobLock(deps.db, PURGE_JOB, holder, iso(now), until)) return new Lease(deps, holder);
  const current = await findJobLock(deps.db, PURGE_JOB);
  const [host, pid] = current?.holder.split(':') ?? [];
  if (current && host === hostname() && Number(pid) !== process.pid && !processIsAlive(Number(pid))) {
    if (await takeJobLockFrom(deps.db, PURGE_JOB, current.holder, holder, until)) return new Lease(deps, holder);
  }
  return undefined;
}

/** Purges every app marked deleted, on one node at a time; `ran` false when another process holds the lease. */
export async function purgeDeletedApps(deps: PurgeDeps, options: PurgeOptions = {}): Promise<PurgeReport> {
  // Nothing marked (the usual answer): one index read, and no lease write on every tick of every node.
  if ((await applications.listDeletedApplicationIds(deps.db, 1)).length === 0) return { ran: true, apps: [] };
  const report: PurgeReport = { ran: false, apps: [] };
  const lease = await takeLease(deps, newHolder());
  if (!lease) return report;
  try {
    for (;;) {
      const ids = await applications.listDeletedApplicationIds(deps.db, 20);
      if (ids.length === 0) break;
      for (const appId of ids) report.apps.push({ app_id: appId, removed: await purgeApp(deps, lease, appId, options) });
    }
    report.ran = true;
    return report;
  } finally {
    await releaseJobLock(deps.db, PURGE_JOB, lease.holder, iso(deps.clock.now()));
  }
}

async function purgeApp(deps: PurgeDeps, lease: Lease, appId: string, options: PurgeOptions): Promise<PurgeCounts> {
  const batch = options.batchSize ?? deps.config.appPurgeBatchSize;
  const removed: PurgeCounts = {};
  const count = (step: string, n: number) => {
    if (n === 0) return;
    removed[step] = (removed[step] ?? 0) + n;
    options.onProgress?.(appId, step, removed[step]);
  };
  /** Runs `step` until it removes nothing: each call one batch, one statement or transaction. */
  const drain = async (name: string, step: () => Promise<number>) => {
    for (let n = await step(); n > 0; n = await step()) {
      count(name, n);
      await lease.renew();
    }
  };

  for (const table of purge.APP_TABLES_BEFORE_USERS) await drain(table.table, () => purge.deleteBatch(deps.db, table, appId, batch));

  // Custom tables: DROP TABLE of each generated t_<id> with its metadata, one table a transaction.
  for (let ids = await purge.listCustomTableIds(deps.db, appId, batch); ids.length > 0; ids = await purge.listCustomTableIds(deps.db, appId, batch)) {
    for (const tableId of ids) {
      await inTransaction(deps.db, (trx) => purge.dropCustomTable(trx, appId, tableId));
      deps.tableMetadata.forget(appId, tableId);
      count('custom_tables', 1);
      await lease.renew();
    }
  }

  for (let ids = await purge.listBucketIds(deps.db, appId, batch); ids.length > 0; ids = await purge.listBucketIds(deps.db, appId, batch)) {
    for (const bucketId of ids) await purgeBucket(deps, appId, bucketId, batch, count, lease);
  }

  for (const table of purge.APP_TABLES_AFTER_USERS) await drain(table.table, () => purge.deleteBatch(deps.db, table, appId, batch));

  // Blobs queued by the object batches whose deletion a crash cut short, or kept for the deletion grace:
  // those still within it stay queued (no row names the app), and the sweep removes them when it ends.
  await drain('blobs', async () => {
    const queued = await purge.listQueuedBlobsOfApp(deps.db, appId, iso(addSeconds(deps.clock.now(), -deps.config.blobDeletionGraceSeconds)), batch);
    const deleted = await deleteQueuedBlobs(deps, queued);
    if (deleted < queued.length) throw new Error('the blob store refused deletions; the purge resumes on its next run');
    return deleted;
  });

  await applications.deleteApplicationRow(deps.db, appId);
  return removed;
}

/** A bucket's objects (blobs queued in the same transaction and deleted after it), uploads, usage rows, then the bucket. */
async function purgeBucket(deps: PurgeDeps, appId: string, bucketId: string, batch: number, count: (step: string, n: number) => void, lease: Lease): Promise<void> {
  for (;;) {
    const blobs = await inTransaction(deps.db, (trx) => purge.deleteObjectBatch(trx, appId, bucketId, batch, iso(deps.clock.now())));
    if (blobs.length === 0) break;
    count('objects', blobs.length);
    const deleted = await deleteBlobsNow(deps, blobs);
    count('blobs', deleted);
    await lease.renew();
  }
  // An upload still writing may land its blob after this: queued for when none can (the sweep deletes it).
  const dueAt = iso(addSeconds(deps.clock.now(), UPLOAD_TIMEOUT_SECONDS));
  for (let n = await inTransaction(deps.db, (trx) => purge.deleteUploadBatch(trx, appId, bucketId, batch, dueAt)); n > 0; ) {
    count('object_uploads', n);
    n = await inTransaction(deps.db, (trx) => purge.deleteUploadBatch(trx, appId, bucketId, batch, dueAt));
  }
  for (let n = await purge.deleteBucketUserUsageBatch(deps.db, bucketId, batch); n > 0; n = await purge.deleteBucketUserUsageBatch(deps.db, bucketId, batch)) {
    count('bucket_user_usage', n);
  }
  await purge.deleteBucketRow(deps.db, appId, bucketId);
  count('buckets', 1);
}

/** Runs the purge now and every 30 s in the background (one node at a time); returns the stop function. */
export function schedulePurge(deps: PurgeDeps & Pick<Deps, 'metrics'>): () => void {
  const removed = (report: PurgeReport) => report.apps.reduce((sum, app) => sum + Object.values(app.removed).reduce<number>((n, v) => n + (typeof v === 'number' ? v : 0), 0), 0);
  return runEvery(
    () =>
      deps.metrics.ops.job('purge', () => purgeDeletedApps(deps), removed).then(
        (report) => {
          for (const app of report.apps) deps.log.info({ job: PURGE_JOB, app_id: app.app_id, removed: app.removed }, 'purged a deleted application');
        },
        (error) => deps.log.error({ err: error, job: PURGE_JOB }, 'purge of deleted applications failed; it resumes on the next run'),
      ),
    PURGE_EVERY_MS,
    1_000,
  );
}
