import { hostname } from 'node:os';
import { addSeconds, iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { deleteOwnerRowBatch } from '../../store/repos/custom-rows.js';
import { addUsedBytes, findCustomTable, listCustomTableIds } from '../../store/repos/custom-tables.js';
import { acquireJobLock, releaseJobLock, renewJobLock } from '../../store/repos/job-locks.js';
import { purgeInvitationBatch } from '../../store/repos/organization-invitations.js';
import { clearActiveOrganization, purgeMembershipBatch } from '../../store/repos/organization-members.js';
import * as orgs from '../../store/repos/organizations.js';
import { inTransaction } from '../../store/transaction.js';
import { deleteUserStorage } from '../accounts/user-deletion.js';
import { deleteBlobsNow } from '../objects/blob-deletion.js';
import { lockAppUsage, releaseUsage } from '../objects/storage-quota.js';
import { runEvery } from '../schedule.js';
import { deleteOwnerObjectBatch } from '../../store/repos/user-objects.js';
import type { QueuedBlob } from '../../store/repos/objects.js';
import type { Db } from '../../store/db.js';

// The second half of deleting an organisation (docs/organizations.md): it is already marked deleted
// (services/organizations/organizations.ts), so no statement reaches it or its data; this removes its
// memberships, invitations, rows and objects in bounded batches, each a short transaction, then the
// organisation's row. Every step is idempotent: a purge cut short runs again from the top on the next run,
// on whichever node holds the job's lease.

export const ORG_PURGE_JOB = 'purge-deleted-organizations';
const LEASE_SECONDS = 60;
const PURGE_EVERY_MS = 30_000;

export type OrgPurgeDeps = Pick<Deps, 'db' | 'clock' | 'log' | 'blobs' | 'config'> & { store: Pick<Deps['store'], 'dialect'> };

/** Purges every organisation marked deleted (one node at a time); answers what each lost, or undefined when another node holds the lease. */
export async function purgeDeletedOrganizations(deps: OrgPurgeDeps, batchSize = deps.config.appPurgeBatchSize) {
  if ((await orgs.findDeletedOrganizations(deps.db, 1)).length === 0) return [];
  const holder = `${hostname()}:${process.pid}:${newUuid()}`;
  const now = deps.clock.now();
  if (!(await acquireJobLock(deps.db, ORG_PURGE_JOB, holder, iso(now), iso(addSeconds(now, LEASE_SECONDS))))) return undefined;
  const purged: { organization_id: string; removed: Record<string, number> }[] = [];
  try {
    for (let found = await orgs.findDeletedOrganizations(deps.db, 20); found.length > 0; found = await orgs.findDeletedOrganizations(deps.db, 20)) {
      for (const org of found) {
        purged.push({ organization_id: org.id, removed: await purgeOrganization(deps, org.app_id, org.id, batchSize) });
        if (!(await renewJobLock(deps.db, ORG_PURGE_JOB, holder, iso(addSeconds(deps.clock.now(), LEASE_SECONDS))))) return purged;
      }
    }
    return purged;
  } finally {
    await releaseJobLock(deps.db, ORG_PURGE_JOB, holder, iso(deps.clock.now()));
  }
}

/** One organisation: each step in batches of `batch` until it removes nothing, then its row. */
export async function purgeOrganization(deps: OrgPurgeDeps, appId: string, orgId: string, batch: number): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  const drain = async (name: string, step: () => Promise<number>) => {
    for (let n = await step(); n > 0; n = await step()) removed[name] = (removed[name] ?? 0) + n;
  };
  await drain('memberships', () => inTransaction(deps.db, (trx) => purgeMembershipBatch(trx, appId, orgId, batch)));
  await drain('invitations', () => purgeInvitationBatch(deps.db, appId, orgId, batch));
  const owner = orgs.orgOwnerKey(orgId);
  for (const tableId of await listCustomTableIds(deps.db, appId)) {
    await drain('rows', () =>
      inTransaction(deps.db, async (trx) => {
        // The table's metadata in share mode, as row writers hold it; a table deleted meanwhile has nothing left.
        if (!(await findCustomTable(trx, deps.store.dialect, appId, tableId, 'share'))) return 0;
        const gone = await deleteOwnerRowBatch(trx, tableId, owner, batch);
        if (gone.bytes > 0) await addUsedBytes(trx, appId, -gone.bytes, deps.config.tablesStorageLimitBytes);
        return gone.rows;
      }),
    );
  }
  // Objects in batches, each one's bytes freed from every counter in its batch's transaction; then the uploads
  // still in flight and the usage rows (with no object left, one short transaction).
  await drain('objects', async () => {
    const batchBlobs = await inTransaction(deps.db, (trx) => purgeObjectBatch(deps, trx, appId, owner, batch));
    await deleteBlobsNow(deps, batchBlobs);
    return batchBlobs.length;
  });
  const blobs = await inTransaction(deps.db, (trx) => deleteUserStorage(deps, trx, appId, owner));
  await deleteBlobsNow(deps, blobs);
  await clearActiveOrganization(deps.db, appId, orgId, null);
  if (await orgs.isOrganizationDeleted(deps.db, appId, orgId)) await orgs.deleteOrganizationRow(deps.db, appId, orgId);
  return removed;
}

/** Up to `batch` objects of the owner, under the app's usage lock (as every object write takes it), their bytes given back. */
async function purgeObjectBatch(deps: OrgPurgeDeps, trx: Db, appId: string, owner: string, batch: number): Promise<QueuedBlob[]> {
  await lockAppUsage(trx, appId);
  const gone = await deleteOwnerObjectBatch(trx, appId, owner, iso(deps.clock.now()), batch);
  const perBucket = new Map<string, { bytes: number; objects: number }>();
  for (const o of gone.objects) {
    const share = perBucket.get(o.bucketId) ?? perBucket.set(o.bucketId, { bytes: 0, objects: 0 }).get(o.bucketId)!;
    share.bytes += o.bytes;
    share.objects += 1;
  }
  for (const [bucketId, share] of perBucket) await releaseUsage(trx, { appId, bucketId, owner }, share.bytes, -share.objects);
  return gone.blobs;
}

/** Runs the purge every 30 s in the background (one node at a time); returns the stop function. */
export function scheduleOrganizationPurge(deps: OrgPurgeDeps): () => void {
  return runEvery(
    () =>
      purgeDeletedOrganizations(deps).then(
        (purged) => {
          for (const org of purged ?? []) deps.log.info({ job: ORG_PURGE_JOB, organization_id: org.organization_id, removed: org.removed }, 'purged a deleted organization');
        },
        (error) => deps.log.error({ err: error, job: ORG_PURGE_JOB }, 'purge of deleted organizations failed; it resumes on the next run'),
      ),
    PURGE_EVERY_MS,
    1_000,
  );
}
