import { iso } from '../../clock.js';
import type { Deps } from '../../deps.js';
import { ApiError, badRequest } from '../../errors.js';
import { findBillingAccount } from '../../store/repos/billing-accounts.js';
import { listLedgerRows } from '../../store/repos/billing-ledger.js';
import { findTenant } from '../../store/repos/tenants.js';
import { inTransaction } from '../../store/transaction.js';
import { postLedgerEntry, toLedgerEntry, type LedgerEntry } from './ledger.js';
import { measureUsage } from './metering.js';
import { centsToUsd } from './money.js';
import { currentPeriod, priceUsage } from './pricing.js';
import type { BillingOverview } from './records.js';

export type { BillingOverview };

export type BillingDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'confirmations'>;

/** Balance, pause state, the current month's usage priced as a run would price it now, and payment methods. */
export async function billingOverview(deps: BillingDeps, tenantId: string): Promise<BillingOverview> {
  const period = currentPeriod(deps.clock.now());
  const [account, usage] = await Promise.all([findBillingAccount(deps.db, tenantId), measureUsage(deps.db, tenantId, period)]);
  const estimated = priceUsage(deps.config.billingPrices, usage).reduce((sum, item) => sum + item.cents, 0);
  return {
    tenant_id: tenantId,
    balance_usd: centsToUsd(account.balanceCents),
    paused: account.paused,
    usage: {
      period_start: period.start,
      period_end: period.end,
      monthly_active_users: usage.monthlyActiveUsers,
      table_storage_bytes: usage.tableStorageBytes,
      object_storage_bytes: usage.objectStorageBytes,
      estimated_charges_usd: centsToUsd(estimated),
    },
    payment_methods: [{ method: 'crypto', chains: deps.config.billingChains }],
  };
}

/**
 * The tenant's ledger rows, newest first, `limit` a page: `next_cursor` (the last row's sequence number, as
 * text) asks for the rows after it; null on the last page. A cursor that is no sequence number is a 400.
 */
export async function listTransactions(deps: BillingDeps, tenantId: string, limit: number, cursor?: string): Promise<{ transactions: LedgerEntry[]; next_cursor: string | null }> {
  if (cursor !== undefined && !/^[1-9][0-9]{0,14}$/.test(cursor)) throw badRequest('cursor is not one this service gave');
  const rows = await listLedgerRows(deps.db, tenantId, limit + 1, cursor === undefined ? undefined : Number(cursor));
  const kept = rows.slice(0, limit);
  return { transactions: kept.map(toLedgerEntry), next_cursor: rows.length > limit ? String(kept[kept.length - 1]!.seq) : null };
}

/**
 * A manual ledger row (`gatehouse billing credit`): type adjustment, no payment; a negative amount is a
 * debit. Crossing zero pauses or resumes the tenant's apps in the same transaction.
 */
export async function adjustBalance(deps: Pick<Deps, 'db' | 'clock'>, tenantId: string, amountCents: number, note: string): Promise<LedgerEntry> {
  if (!(await findTenant(deps.db, tenantId))) throw new ApiError(404, 'not_found', `tenant ${tenantId} not found`);
  const now = iso(deps.clock.now());
  const row = await inTransaction(deps.db, (trx) =>
    postLedgerEntry(trx, { tenantId, type: 'adjustment', amountCents, description: note, paymentId: null, now }),
  );
  return toLedgerEntry(row);
}
