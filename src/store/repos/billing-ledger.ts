import type { Db } from '../db.js';
import { rowLimit } from '../limit.js';
import type { LedgerRow } from '../types.js';

/** Appends a ledger row; a second row for one `payment_id` fails with a unique violation. Rows are never updated. */
export async function insertLedgerRow(db: Db, row: LedgerRow): Promise<void> {
  await db.insertInto('billing_ledger').values(row).execute();
}

/** The tenant's newest `limit` rows, newest first; with `beforeSeq`, only the rows older than that one (keyset). */
export async function listLedgerRows(db: Db, tenantId: string, limit: number, beforeSeq?: number): Promise<LedgerRow[]> {
  let query = db.selectFrom('billing_ledger').selectAll().where('tenant_id', '=', tenantId);
  if (beforeSeq !== undefined) query = query.where('seq', '<', beforeSeq);
  const rows = await query.orderBy('seq', 'desc').limit(rowLimit(limit)).execute();
  return rows.map(numeric);
}

const numeric = (row: LedgerRow): LedgerRow => ({
  ...row,
  seq: Number(row.seq),
  amount_cents: Number(row.amount_cents),
  balance_after_cents: Number(row.balance_after_cents),
});
