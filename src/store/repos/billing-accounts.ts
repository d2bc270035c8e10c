import { sql } from 'kysely';
import type { Db } from '../db.js';

export interface BillingAccount {
  balanceCents: number;
  paused: boolean;
}

/** The tenant's balance and pause state; a tenant that never had a ledger row has balance 0. */
export async function findBillingAccount(db: Db, tenantId: string): Promise<BillingAccount> {
  const row = await db.selectFrom('billing_accounts').select(['balance_cents', 'paused']).where('tenant_id', '=', tenantId).executeTakeFirst();
  return { balanceCents: Number(row?.balance_cents ?? 0), paused: row?.paused === 1 };
}

/**
 * Moves the balance by `deltaCents` and takes the next ledger sequence number in one UPDATE, which also
 * sets `paused` from the new balance: the pause can never disagree with the balance. The row lock it takes
 * orders concurrent writers of one tenant. Call it inside the transaction that inserts the ledger row.
 */
export async function applyBalanceDelta(
  db: Db,
  tenantId: string,
  deltaCents: number,
  now: string,
): Promise<{ balanceCents: number; seq: number; paused: boolean }> {
  await db
    .insertInto('billing_accounts')
    .values({ tenant_id: tenantId, balance_cents: 0, paused: 0, ledger_seq: 0, updated_at: now })
    .onConflict((oc) => oc.column('tenant_id').doNothing())
    .execute();
  const row = await db
    .updateTable('billing_accounts')
    .set({
      balance_cents: sql`balance_cents + ${deltaCents}`,
      ledger_seq: sql`ledger_seq + 1`,
      paused: sql`case when balance_cents + ${deltaCents} < 0 then 1 else 0 end`,
      updated_at: now,
    })
    .where('tenant_id', '=', tenantId)
    .returning(['balance_cents', 'ledger_seq', 'paused'])
    .executeTakeFirstOrThrow();
  return { balanceCents: Number(row.balance_cents), seq: Number(row.ledger_seq), paused: row.paused === 1 };
}
