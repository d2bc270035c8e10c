import { iso, type Clock } from '../../clock.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import type { Db } from '../../store/db.js';
import * as applications from '../../store/repos/applications.js';
import * as tenants from '../../store/repos/tenants.js';
import { inTransaction } from '../../store/transaction.js';
import { OPERATOR_CONTEXT, type EventContext } from '../events/types.js';
import { recordTenantEvent } from '../management/events.js';
import { purgeDeletedApps, type PurgeCounts, type PurgeDeps, type PurgeOptions } from './purge.js';

// Deleting an app or a tenant (docs/operations.md and docs/privacy.md), first half: one short transaction marks it
// deleted. From that commit on, every route of every node answers 401 (its keys are gone, and no lookup by
// Host or app id finds a marked app) and its JWKS 404. The data goes afterwards, in batches (purge.ts).
// A tenant's row stays, marked, beside its billing ledger: a financial record (docs/privacy.md).

export interface DeletionMark {
  /** The apps now marked (or found marked by an earlier, unfinished deletion). */
  app_ids: string[];
  deleted_at: string;
}

/** Marks the app deleted; an app marked earlier whose purge did not finish is answered as marked. 404 when unknown. */
export async function markAppDeleted(deps: { db: Db; clock: Clock }, appId: string, context: EventContext = OPERATOR_CONTEXT): Promise<DeletionMark> {
  const at = deps.clock.now();
  const now = iso(at);
  const app = await applications.findApplication(deps.db, appId);
  const marked =
    app !== undefined &&
    (await inTransaction(deps.db, async (trx) => {
      if (!(await applications.markApplicationDeleted(trx, appId, now))) return false;
      await recordTenantEvent(trx, context, app.tenantId, 'app.deleted', { app_id: appId, name: app.name }, at);
      return true;
    }));
  if (marked) return { app_ids: [appId], deleted_at: now };
  if (await applications.isApplicationMarkedDeleted(deps.db, appId)) return { app_ids: [appId], deleted_at: now };
  throw notFound(`application ${appId} not found`);
}

/** Marks the tenant and every app of it deleted, in one transaction; a tenant marked earlier answers its unpurged apps. 404 when unknown. */
export async function markTenantDeleted(deps: { db: Db; clock: Clock }, tenantId: string, context: EventContext = OPERATOR_CONTEXT): Promise<DeletionMark> {
  const at = deps.clock.now();
  const now = iso(at);
  const tenant = await tenants.findTenant(deps.db, tenantId);
  if (!tenant) throw notFound(`tenant ${tenantId} not found`);
  await inTransaction(deps.db, async (trx) => {
    if (await tenants.markTenantDeleted(trx, tenantId, now)) await recordTenantEvent(trx, context, tenantId, 'tenant.deleted', {}, at);
    for (const appId of await applications.listApplicationIdsOfTenant(trx, tenantId)) await applications.markApplicationDeleted(trx, appId, now);
  });
  return { app_ids: await applications.listDeletedApplicationIdsOfTenant(deps.db, tenantId), deleted_at: tenant.deleted_at ?? now };
}

export interface PurgeResult {
  /** Per app: what this process removed (empty when another node's job purged it). */
  apps: { app_id: string; removed: PurgeCounts }[];
}

/**
 * Runs the purge until none of `appIds` is left. When another process holds the job's lease (a server's
 * background job), waits for it, polling once a second: the apps' rows go last, so their absence is the end.
 */
export async function purgeUntilGone(deps: PurgeDeps & Pick<Deps, 'db'>, appIds: string[], options: PurgeOptions = {}): Promise<PurgeResult> {
  const result: PurgeResult = { apps: appIds.map((app_id) => ({ app_id, removed: {} })) };
  for (;;) {
    const report = await purgeDeletedApps(deps, options);
    for (const purged of report.apps) {
      const entry = result.apps.find((app) => app.app_id === purged.app_id);
      if (entry) for (const [step, n] of Object.entries(purged.removed)) entry.removed[step] = (entry.removed[step] ?? 0) + n;
    }
    const left = await Promise.all(appIds.map((id) => applications.isApplicationMarkedDeleted(deps.db, id)));
    if (!left.includes(true)) return result;
    if (!report.ran) await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
