import type { Selectable } from 'kysely';

// Billing (migration 0010). Money is integer cents; bigint columns arrive as numbers on both databases.

export interface BillingAccountsTable {
  tenant_id: string;
  balance_cents: number;
  paused: number;
  ledger_seq: number;
  updated_at: string;
}

export type LedgerType = 'topup' | 'usage' | 'adjustment';

export interface BillingLedgerTable {
  id: string;
  tenant_id: string;
  seq: number;
  type: LedgerType;
  amount_cents: number;
  balance_after_cents: number;
  description: string;
  payment_id: string | null;
  created_at: string;
}

export type LedgerRow = Selectable<BillingLedgerTable>;

export type TopupStatus = 'pending' | 'confirmed' | 'expired';

export interface BillingTopupsTable {
  id: string;
  tenant_id: string;
  app_id: string;
  challenge_id: string;
  amount_cents: number;
  method: 'crypto';
  chain: string;
  pay_address: string;
  pay_amount: string;
  status: TopupStatus;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

export type TopupRow = Selectable<BillingTopupsTable>;

export type UsageItem = 'monthly_active_users' | 'table_storage' | 'object_storage';

export interface BillingUsageChargesTable {
  tenant_id: string;
  period: string; // YYYY-MM
  item: UsageItem;
  quantity: number;
  amount_cents: number;
  transaction_id: string | null;
  created_at: string;
}
