import type { Db } from '../db.js';
import type { TenantRow } from '../types.js';

export async function insertTenant(db: Db, row: TenantRow): Promise<void> {
  await db.insertInto('tenants').values(row).execute();
}

/** The tenant, or undefined. */
export async function findTenant(db: Db, tenantId: string): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', tenantId).executeTakeFirst();
}
