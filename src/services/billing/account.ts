import { iso } from '../../clock.js';
import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { findBillingAccount } from '../../store/repos/billing-accounts.js';
import { listLedgerRows } from '../../store/repos/billing-ledger.js';
import { findTenant } from '../../store/repos/tenants.js';
import { inTransaction } from '../../store/transaction.js';
import { postLedgerEntry, toLedgerEntry, type LedgerEntry } from './ledger.js';
import { measureUsage } from './metering.js';
import { centsToUsd } from './money.js';
import { currentPeriod, priceUsage } from './pricing.js';

export type BillingDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'confirmations'>;

export interface BillingOverview {
  tenant_id: string;
  balance_usd: number;
  paused: boolean;
  usage: {
    period_start: string;
    period_end: string;
    monthly_active_users: number;
    table_storage_bytes: number;
    object_storage_bytes: number;
    estimated_charges_usd: number;
  };
  payment_methods: { method: 'crypto'; chains: string[] }[];
}

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

/** The tenant's newest ledger rows, newest first. */
export async function listTransactions(deps: BillingDeps, tenantId: string, limit: number): Promise<LedgerEntry[]> {
  return (await listLedgerRows(deps.db, tenantId, limit)).map(toLedgerEntry);
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
