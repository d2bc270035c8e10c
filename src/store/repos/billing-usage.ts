import type { Db } from '../db.js';
import { sumActiveUsers } from './active-users.js';
import type { UsageItem } from '../types.js';

/**
 * Records the charge of (tenant, period, item) unless one exists; true for the one caller that records it.
 * ON CONFLICT DO NOTHING rather than a failing insert: a failed statement would abort a PostgreSQL transaction.
 */
export async function insertUsageCharge(
  db: Db,
  row: { tenant_id: string; period: string; item: UsageItem; quantity: number; amount_cents: number; transaction_id: string | null; created_at: string },
): Promise<boolean> {
  const inserted = await db
    .insertInto('billing_usage_charges')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'period', 'item']).doNothing())
    .returning('item')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Monthly active users of the tenant's apps in `period` (its name, 'YYYY-MM'): distinct users with a session
 * started or refreshed in the month, per app, from the counts kept as sessions start and refresh
 * (store/repos/active-users.ts, migration 0022): at most 16 rows per app, whatever the number of sessions.
 */
export function countActiveUsers(db: Db, tenantId: string, period: { name: string }): Promise<number> {
  return sumActiveUsers(db, tenantId, period.name);
}

/** Every tenant id, for a metering run. */
export async function listTenantIds(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('tenants').select('id').orderBy('id').execute();
  return rows.map((r) => r.id);
}
