import type { Deps } from '../deps.js';
import { deleteBlobDeletion, type QueuedBlob } from '../store/repos/objects.js';

export const blobName = (appId: string, blobId: string) => `${appId}/${blobId}`;

/**
 * Removes blobs whose metadata is already gone, then their blob_deletions rows (each only while it holds
 * the token it was queued with: a blob queued again meanwhile stays queued). A failure is logged and left
 * to the sweep: the row stays, so the blob is retried later.
 */
export async function deleteBlobsNow(deps: Pick<Deps, 'db' | 'blobs' | 'log'>, blobs: QueuedBlob[]): Promise<number> {
  let deleted = 0;
  for (const blob of blobs) {
    try {
      await deps.blobs.delete(blobName(blob.app_id, blob.blob_id));
      await deleteBlobDeletion(deps.db, blob);
      deleted++;
    } catch (error) {
      deps.log.warn({ err: error, blob_id: blob.blob_id }, 'blob deletion failed; the sweep will retry');
    }
  }
  return deleted;
}
