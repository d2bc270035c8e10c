import { sql } from 'kysely';
import type { Db } from '../db.js';
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
 * Monthly active users: distinct users of the tenant's apps with a session started, or refreshed, in the
 * month `month` ('YYYY-MM') that runs over [from, to). A session row keeps the last two distinct months it
 * was refreshed in (migration 0014), which a metering run reads within a month of the period's end; the
 * refresh tokens of the earlier form count by their issue time. User ids are unique across apps, so one
 * person in two apps counts twice.
 */
export async function countActiveUsers(db: Db, tenantId: string, period: { name: string; start: string; end: string }): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`
    select count(distinct user_id) as n from (
      select s.user_id from sessions s join applications a on a.id = s.app_id
        where a.tenant_id = ${tenantId} and s.created_at >= ${period.start} and s.created_at < ${period.end}
      union
      select s.user_id from sessions s join applications a on a.id = s.app_id
        where a.tenant_id = ${tenantId} and (s.refreshed_month = ${period.name} or s.prior_refreshed_month = ${period.name})
      union
      select s.user_id from refresh_tokens r join sessions s on s.id = r.session_id join applications a on a.id = r.app_id
        where a.tenant_id = ${tenantId} and r.created_at >= ${period.start} and r.created_at < ${period.end}
    ) active`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** Every tenant id, for a metering run. */
export async function listTenantIds(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('tenants').select('id').orderBy('id').execute();
  return rows.map((r) => r.id);
}
