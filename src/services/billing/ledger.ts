import { newUuid } from '../../crypto/ids.js';
import { applyBalanceDelta } from '../../store/repos/billing-accounts.js';
import { insertLedgerRow } from '../../store/repos/billing-ledger.js';
import type { Db } from '../../store/db.js';
import type { LedgerRow, LedgerType } from '../../store/types.js';
import { centsToUsd } from './money.js';

export interface LedgerEntry {
  transaction_id: string;
  type: LedgerType;
  amount_usd: number;
  balance_after_usd: number;
  description: string;
  payment_id: string | null;
  created_at: string;
}

export const toLedgerEntry = (row: LedgerRow): LedgerEntry => ({
  transaction_id: row.id,
  type: row.type,
  amount_usd: centsToUsd(row.amount_cents),
  balance_after_usd: centsToUsd(row.balance_after_cents),
  description: row.description,
  payment_id: row.payment_id,
  created_at: row.created_at,
});

/**
 * Appends one ledger row and moves the balance (and the pause flag) with it. Must run inside the caller's
 * transaction: the balance UPDATE locks the tenant's account row, so rows of one tenant get consecutive
 * sequence numbers and balance_after is always the previous balance plus the amount.
 */
export async function postLedgerEntry(
  trx: Db,
  entry: { tenantId: string; type: LedgerType; amountCents: number; description: string; paymentId: string | null; now: string; id?: string },
): Promise<LedgerRow> {
  const account = await applyBalanceDelta(trx, entry.tenantId, entry.amountCents, entry.now);
  const row: LedgerRow = {
    id: entry.id ?? newUuid(),
    tenant_id: entry.tenantId,
    seq: account.seq,
    type: entry.type,
    amount_cents: entry.amountCents,
    balance_after_cents: account.balanceCents,
    description: entry.description,
    payment_id: entry.paymentId,
    created_at: entry.now,
  };
  await insertLedgerRow(trx, row);
  return row;
}
