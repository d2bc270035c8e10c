import { addSeconds, iso } from '../clock.js';
import type { Deps } from '../deps.js';
import * as objects from '../store/repos/objects.js';
import { inTransaction } from '../store/transaction.js';
import { deleteBlobsNow } from './object-blobs.js';
import { lockAppUsage, releaseUsage } from './object-usage.js';

/** An upload still in flight after this long belongs to a request that died with its node. */
export const UPLOAD_TIMEOUT_SECONDS = 60 * 60;
/** Deletions are done right after their commit; the sweep only takes those left this long. */
const DELETION_GRACE_SECONDS = 60;
const BATCH = 500;

export interface ObjectSweepReport {
  stale_uploads: number;
  orphan_blobs: number;
}

/**
 * Clean-up after crashes: uploads older than the timeout give their bytes back and lose their blob;
 * blobs whose metadata is gone, and temporary files of cut writes, are deleted. Safe to run beside live traffic (each row is taken by one
 * conditional delete) and on every node, though maintenance runs it under a lease.
 */
export async function sweepObjects(deps: Pick<Deps, 'db' | 'clock' | 'blobs' | 'log'>): Promise<ObjectSweepReport> {
  const now = deps.clock.now();
  const report: ObjectSweepReport = { stale_uploads: 0, orphan_blobs: 0 };
  for (const stale of await objects.listStaleUploads(deps.db, iso(addSeconds(now, -UPLOAD_TIMEOUT_SECONDS)), BATCH)) {
    const taken = await inTransaction(deps.db, async (trx) => {
      await lockAppUsage(trx, stale.app_id);
      const upload = await objects.deleteUploadReturning(trx, stale.app_id, stale.blob_id);
      if (!upload) return undefined;
      await releaseUsage(trx, { appId: upload.app_id, bucketId: upload.bucket_id, owner: upload.owner }, upload.reserved_bytes);
      return objects.insertBlobDeletion(trx, stale.app_id, stale.blob_id, iso(now));
    });
    if (!taken) continue;
    await deleteBlobsNow(deps, [taken]);
    report.stale_uploads++;
  }
  // Temporary files of writes cut by a crash (file store): older than any live upload can be.
  report.orphan_blobs = await deps.blobs.sweepTemporary(addSeconds(now, -UPLOAD_TIMEOUT_SECONDS));
  report.orphan_blobs += await deleteBlobsNow(deps, await objects.listBlobDeletions(deps.db, iso(addSeconds(now, -DELETION_GRACE_SECONDS)), BATCH));
  return report;
}
