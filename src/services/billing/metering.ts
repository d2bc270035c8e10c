import { hostname } from 'node:os';
import { addSeconds, iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import type { Db } from '../../store/db.js';
import { countActiveUsers, insertUsageCharge, listTenantIds } from '../../store/repos/billing-usage.js';
import { acquireJobLock, releaseJobLock } from '../../store/repos/job-locks.js';
import { inTransaction } from '../../store/transaction.js';
import { runEvery } from '../schedule.js';
import type { UsageItem } from '../../store/types.js';
import { postLedgerEntry } from './ledger.js';
import { centsToUsd } from './money.js';
import { previousPeriod, priceUsage, type Period, type Usage } from './pricing.js';
import { objectStorageBytes, tableStorageBytes } from './usage-sources.js';

export const METERING_JOB = 'billing-metering';
const METERING_EVERY_MS = 60 * 60_000;
const FIRST_RUN_AFTER_MS = 60_000;
const LEASE_SECONDS = 15 * 60;

export type MeteringDeps = Pick<Deps, 'db' | 'clock' | 'log' | 'config'>;

export interface UsageCharge {
  tenant_id: string;
  period: string;
  item: UsageItem;
  quantity: number;
  amount_usd: number;
  transaction_id: string | null;
}

const LABELS: Record<UsageItem, (quantity: number) => string> = {
  monthly_active_users: (n) => `${n} monthly active users`,
  table_storage: (n) => `${n} bytes of table storage`,
  object_storage: (n) => `${n} bytes of object storage`,
};

/** Lets requests waiting on the event loop in, between two tenants. */
const letOthersIn = () => new Promise((resolve) => setImmediate(resolve));

/** The tenant's usage in `period`: active users of the period, storage as held now. */
export async function measureUsage(db: Db, tenantId: string, period: Period): Promise<Usage> {
  const [monthlyActiveUsers, tables, objects] = await Promise.all([
    countActiveUsers(db, tenantId, period),
    tableStorageBytes(db, tenantId),
    objectStorageBytes(db, tenantId),
  ]);
  return { monthlyActiveUsers, tableStorageBytes: tables, objectStorageBytes: objects };
}

/**
 * Charges every tenant for `period`: each (tenant, period, item) once, however often and on however many
 * nodes this runs (the usage-charge primary key decides, in the transaction of the ledger row). Returns
 * the charges this call made; items that were free are recorded too (so they are never charged later), with
 * no ledger row.
 */
export async function runMetering(deps: MeteringDeps, period: Period): Promise<UsageCharge[]> {
  const made: UsageCharge[] = [];
  for (const tenantId of await listTenantIds(deps.db)) {
    // better-sqlite3 runs each statement on the event loop, and nothing below waits on I/O: without this, a
    // run over 1,000 tenants held every request for its whole length (2.8 s; bench/README.md, "Data scale").
    await letOthersIn();
    const usage = await measureUsage(deps.db, tenantId, period);
    for (const priced of priceUsage(deps.config.billingPrices, usage)) {
      const now = iso(deps.clock.now());
      const transactionId = priced.cents > 0 ? newUuid() : null;
      const recorded = await inTransaction(deps.db, async (trx) => {
        const first = await insertUsageCharge(trx, {
          tenant_id: tenantId,
          period: period.name,
          item: priced.item,
          quantity: priced.quantity,
          amount_cents: priced.cents,
          transaction_id: transactionId,
          created_at: now,
        });
        if (first && transactionId) {
          await postLedgerEntry(trx, {
            id: transactionId,
            tenantId,
            type: 'usage',
            amountCents: -priced.cents,
            description: `Usage ${period.name}: ${LABELS[priced.item](priced.quantity)}`,
            paymentId: null,
            now,
          });
        }
        return first;
      });
      if (recorded) {
        made.push({ tenant_id: tenantId, period: period.name, item: priced.item, quantity: priced.quantity, amount_usd: centsToUsd(priced.cents), transaction_id: transactionId });
      }
    }
  }
  return made;
}

/** The scheduled run: the last closed month, on one node at a time (a database lease); undefined when another node holds it. */
export async function runScheduledMetering(deps: MeteringDeps, holder = `${hostname()}:${process.pid}:${newUuid()}`): Promise<UsageCharge[] | undefined> {
  const now = deps.clock.now();
  if (!(await acquireJobLock(deps.db, METERING_JOB, holder, iso(now), iso(addSeconds(now, LEASE_SECONDS))))) return undefined;
  try {
    return await runMetering(deps, previousPeriod(now));
  } finally {
    await releaseJobLock(deps.db, METERING_JOB, holder, iso(deps.clock.now()));
  }
}

/** Runs metering a minute after start and then every hour in the background (runEvery); returns the stop function. */
export function scheduleMetering(deps: MeteringDeps & Pick<Deps, 'metrics'>): () => void {
  return runEvery(
    () =>
      deps.metrics.ops.job('metering', () => runScheduledMetering(deps), (charges) => charges?.length ?? 0).then(
        (charges) => charges?.length && deps.log.info({ job: METERING_JOB, charges: charges.length }, 'metering run charged usage'),
        (error) => deps.log.error({ err: error, job: METERING_JOB }, 'metering run failed'),
      ),
    METERING_EVERY_MS,
    FIRST_RUN_AFTER_MS,
  );
}
