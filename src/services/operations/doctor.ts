import type { BlobStore } from '../../blobs/store.js';
import type { Db } from '../../store/db.js';
import { findCounterDrift, findReferencedBlobIds, listObjectBlobs, type CounterDrift } from '../../store/repos/consistency.js';
import { blobName } from '../objects/blob-deletion.js';

// `gatehouse doctor`: what a restore, a copy made in the wrong order or a hand-made change can leave
// (docs/operations.md, "Backups"): object rows whose blob is missing, blobs no row names, and kept
// counters that differ from the sums they keep. Each finding says how to repair it; --remove-orphan-blobs
// does the one repair that needs no judgement.

const PAGE = 500;

export interface DoctorReport {
  ok: boolean;
  objects_checked: number;
  blobs_checked: number;
  /** Object rows whose blob the store does not have: GET answers 404 for them, and their bytes are billed. */
  missing_blobs: { app_id: string; bucket_id: string; key: string; blob_id: string }[];
  /** Blobs that no object, upload or deletion queue row names (removed with --remove-orphan-blobs). */
  orphan_blobs: string[];
  orphan_blobs_removed: number;
  counters: (CounterDrift & { repair: string })[];
  repair: string[];
}

export async function runDoctor(deps: { db: Db; blobs: BlobStore }, options: { removeOrphanBlobs?: boolean } = {}): Promise<DoctorReport> {
  const report: DoctorReport = { ok: true, objects_checked: 0, blobs_checked: 0, missing_blobs: [], orphan_blobs: [], orphan_blobs_removed: 0, counters: [], repair: [] };

  // Blobs first, then rows: a blob listed now was named by a row then, so the row (or the one a commit moved
  // it into, an upload becoming an object) is there when asked after.
  let batch: string[] = [];
  const checkBatch = async () => {
    const named = await findReferencedBlobIds(deps.db, batch.map((name) => name.slice(name.indexOf('/') + 1)));
    for (const name of batch) if (!named.has(name.slice(name.indexOf('/') + 1))) report.orphan_blobs.push(name);
    batch = [];
  };
  for await (const name of deps.blobs.list()) {
    report.blobs_checked++;
    batch.push(name);
    if (batch.length >= PAGE) await checkBatch();
  }
  await checkBatch();
  if (options.removeOrphanBlobs) {
    for (const name of report.orphan_blobs) {
      await deps.blobs.delete(name);
      report.orphan_blobs_removed++;
    }
  }

  for (let after = ''; ; ) {
    const rows = await listObjectBlobs(deps.db, after, PAGE);
    for (const row of rows) {
      report.objects_checked++;
      if (!(await deps.blobs.exists(blobName(row.app_id, row.blob_id)))) report.missing_blobs.push(row);
    }
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.blob_id;
  }

  report.counters = (await findCounterDrift(deps.db)).map((drift) => ({ ...drift, repair: counterRepair(drift) }));

  if (report.missing_blobs.length) {
    report.repair.push(
      `${report.missing_blobs.length} object row(s) without a blob: put the blob back from a backup (gatehouse restore of the same backup brings both), ` +
        'or delete each object (DELETE /v1/buckets/{bucket_id}/objects/{key} with the app\'s secret key), which gives its bytes back to the counters',
    );
  }
  if (report.orphan_blobs.length > report.orphan_blobs_removed) {
    report.repair.push(`${report.orphan_blobs.length - report.orphan_blobs_removed} blob(s) no row names: nothing can reach them; gatehouse doctor --remove-orphan-blobs deletes them`);
  }
  if (report.counters.length) report.repair.push(`${report.counters.length} counter(s) differ from their sums: run each finding's repair statement with the server stopped`);
  report.ok = report.missing_blobs.length === 0 && report.orphan_blobs.length === report.orphan_blobs_removed && report.counters.length === 0;
  return report;
}

/** The statement that sets the counter to its sum (run with the server stopped, so no write moves it meanwhile). */
function counterRepair(drift: CounterDrift): string {
  switch (drift.counter) {
    case 'bucket_bytes':
      return `update buckets set used_bytes = ${drift.sum} where id = '${drift.bucket_id}'`;
    case 'bucket_objects':
      return `update buckets set object_count = ${drift.sum} where id = '${drift.bucket_id}'`;
    case 'app_bytes':
      return `update object_storage_usage set used_bytes = ${drift.sum} where app_id = '${drift.app_id}'`;
    case 'user_bytes':
      return `update bucket_user_usage set used_bytes = ${drift.sum} where bucket_id = '${drift.bucket_id}' and user_id = '${drift.user_id}'`;
    case 'app_users':
      return `delete from user_counts where app_id = '${drift.app_id}'; insert into user_counts (app_id, slot, users) select app_id, substr(id, 1, 1), count(*) from users where app_id = '${drift.app_id}' group by app_id, substr(id, 1, 1)`;
  }
}
