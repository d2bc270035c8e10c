import type { Config } from '../../config/index.js';
import type { Deps } from '../../deps.js';
import { LogThrottle } from '../../observability/log-throttle.js';
import { deleteBlobDeletion, type QueuedBlob } from '../../store/repos/objects.js';

const deletionFailures = new LogThrottle(10_000);

export const blobName = (appId: string, blobId: string) => `${appId}/${blobId}`;

type DeletionDeps = Pick<Deps, 'db' | 'blobs' | 'log'> & { config: Pick<Config, 'blobDeletionGraceSeconds'> };

/**
 * Right after the commit that queued them: removes the blobs at once when BLOB_DELETION_GRACE_SECONDS is 0;
 * otherwise leaves them queued for the sweep, which removes them once the grace is over, so a backup whose
 * database copy still names them finds their bytes (docs/operations.md, "Backups"). Returns how many went now.
 */
export async function deleteBlobsNow(deps: DeletionDeps, blobs: QueuedBlob[]): Promise<number> {
  if (deps.config.blobDeletionGraceSeconds > 0) return 0;
  return deleteQueuedBlobs(deps, blobs);
}

/**
 * Removes blobs whose metadata is already gone, then their blob_deletions rows (each only while it holds
 * the token it was queued with: a blob queued again meanwhile stays queued). A failure is logged and left
 * to the sweep: the row stays, so the blob is retried later.
 */
export async function deleteQueuedBlobs(deps: Pick<Deps, 'db' | 'blobs' | 'log'>, blobs: QueuedBlob[]): Promise<number> {
  let deleted = 0;
  for (const blob of blobs) {
    try {
      await deps.blobs.delete(blobName(blob.app_id, blob.blob_id));
      await deleteBlobDeletion(deps.db, blob);
      deleted++;
    } catch (error) {
      // A store that is down fails every deletion alike: one line every 10 s per node, the message only.
      const suppressed = deletionFailures.admit('blob_deletion_failed');
      if (suppressed !== undefined) {
        deps.log.warn({ code: 'blob_deletion_failed', blob_id: blob.blob_id, error: (error as Error)?.message, suppressed }, 'blob deletion failed; the sweep will retry');
      }
    }
  }
  return deleted;
}
