import { addSeconds, iso } from '../../clock.js';
import type { Deps } from '../../deps.js';
import * as objects from '../../store/repos/objects.js';
import { inTransaction } from '../../store/transaction.js';
import { LogThrottle } from '../../observability/log-throttle.js';
import { deleteBlobsNow, deleteQueuedBlobs } from './blob-deletion.js';
import { lockAppUsage, releaseUsage } from './storage-quota.js';

/**
 * An upload still in flight after this long belongs to a request that died with its node, whatever the
 * node says (and rows written before migration 0023 name no node: this is their only timeout).
 */
export const UPLOAD_TIMEOUT_SECONDS = 60 * 60;
/** Deletions are done right after their commit; the sweep only takes those left this long. */
const DELETION_GRACE_SECONDS = 60;
const BATCH = 500;

type SweepDeps = Pick<Deps, 'db' | 'clock' | 'blobs' | 'log' | 'config'>;

export interface ObjectSweepReport {
  stale_uploads: number;
  orphan_blobs: number;
}

/**
 * Clean-up after crashes: uploads whose node is gone, or older than the timeout, give their bytes back and lose their blob;
 * blobs whose metadata is gone, and temporary files of cut writes, are deleted. Safe to run beside live traffic (each row is taken by one
 * conditional delete) and on every node, though maintenance runs it under a lease.
 */
export async function sweepObjects(deps: SweepDeps): Promise<ObjectSweepReport> {
  const now = deps.clock.now();
  const report: ObjectSweepReport = { stale_uploads: 0, orphan_blobs: 0 };
  report.stale_uploads += await releaseOrphanedUploads(deps);
  report.stale_uploads += await releaseUploads(deps, await objects.listStaleUploads(deps.db, iso(addSeconds(now, -UPLOAD_TIMEOUT_SECONDS)), BATCH));
  // Temporary files of writes cut by a crash (file store): older than any live upload can be.
  report.orphan_blobs = await deps.blobs.sweepTemporary(addSeconds(now, -UPLOAD_TIMEOUT_SECONDS));
  const queuedBefore = iso(addSeconds(now, -Math.max(DELETION_GRACE_SECONDS, deps.config.blobDeletionGraceSeconds)));
  report.orphan_blobs += await deleteQueuedBlobs(deps, await objects.listBlobDeletions(deps.db, queuedBefore, BATCH));
  return report;
}

/**
 * Gives back the reservations of uploads, each taken by one conditional delete (with `orphanedBefore`,
 * only while its node has still not vouched for it), and deletes their blobs. Returns how many it took.
 */
async function releaseUploads(deps: SweepDeps, rows: { app_id: string; blob_id: string }[], orphanedBefore?: string): Promise<number> {
  let released = 0;
  for (const row of rows) {
    const taken = await inTransaction(deps.db, async (trx) => {
      await lockAppUsage(trx, row.app_id);
      const upload = await objects.deleteUploadReturning(trx, row.app_id, row.blob_id, orphanedBefore);
      if (!upload) return undefined;
      await releaseUsage(trx, { appId: upload.app_id, bucketId: upload.bucket_id, owner: upload.owner }, upload.reserved_bytes);
      return objects.insertBlobDeletion(trx, row.app_id, row.blob_id, iso(deps.clock.now()));
    });
    if (!taken) continue;
    await deleteBlobsNow(deps, [taken]);
    released++;
  }
  return released;
}

/** Releases the uploads whose node has not vouched for them within UPLOAD_STALE_SECONDS: that node is gone. */
export async function releaseOrphanedUploads(deps: SweepDeps): Promise<number> {
  const before = iso(addSeconds(deps.clock.now(), -deps.config.uploadStaleSeconds));
  return releaseUploads(deps, await objects.listOrphanedUploads(deps.db, before, BATCH), before);
}

/**
 * Every UPLOAD_STALE_SECONDS / 3, on every node: vouches for this node's uploads in flight, then releases
 * those of nodes that stopped vouching (a crash, a kill -9): their bytes go back to the caps within
 * minutes, not after the hour-long timeout. Cheap when there is nothing to do: one index walk over the
 * node's own rows, one over rows older than the limit. Returns the stop function.
 */
export function scheduleUploadLiveness(deps: SweepDeps & Pick<Deps, 'nodeId' | 'metrics'>): () => void {
  const failures = new LogThrottle(60_000);
  let running = false;
  const beat = async () => {
    if (running) return;
    running = true;
    try {
      const released = await deps.metrics.ops.job(
        'upload_liveness',
        async () => {
          await objects.touchNodeUploads(deps.db, deps.nodeId, iso(deps.clock.now()));
          return releaseOrphanedUploads(deps);
        },
        (n) => n,
      );
      if (released) deps.log.info({ released_uploads: released }, 'released the uploads of a node that is gone');
    } catch (error) {
      // A database outage: said once a minute; the next beat tries again.
      const suppressed = failures.admit('upload_liveness');
      if (suppressed !== undefined) deps.log.warn({ code: 'upload_liveness_failed', error: (error as Error).message, suppressed }, 'could not vouch for uploads in flight; retrying');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void beat(), (deps.config.uploadStaleSeconds * 1000) / 3);
  timer.unref();
  return () => clearInterval(timer);
}
