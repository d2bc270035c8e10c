import type { Db } from '../db.js';
import type { TopupRow, TopupStatus } from '../types.js';

export async function insertTopup(db: Db, row: TopupRow): Promise<void> {
  await db.insertInto('billing_topups').values(row).execute();
}

/** The tenant's top-up, or undefined (another tenant's id reads as unknown). */
export async function findTopup(db: Db, tenantId: string, paymentId: string): Promise<TopupRow | undefined> {
  const row = await db.selectFrom('billing_topups').selectAll().where('tenant_id', '=', tenantId).where('id', '=', paymentId).executeTakeFirst();
  return row && { ...row, amount_cents: Number(row.amount_cents) };
}

/**
 * Moves a pending top-up to `status`. Only one caller can win: the conditional UPDATE is the whole check
 * (true for the winner). The credit that goes with `confirmed` must be written in the same transaction.
 */
export async function settleTopup(db: Db, tenantId: string, paymentId: string, status: Exclude<TopupStatus, 'pending'>, now: string): Promise<boolean> {
  const row = await db
    .updateTable('billing_topups')
    .set({ status, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', paymentId)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
