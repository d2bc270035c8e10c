import type { Db } from '../db.js';
import type { Insertable } from 'kysely';
import type { TenantRow, TenantsTable } from '../types.js';

export async function insertTenant(db: Db, row: Insertable<TenantsTable>): Promise<void> {
  await db.insertInto('tenants').values(row).execute();
}

/** The tenant, deleted or not (a deleted tenant's billing ledger stays readable), or undefined. */
export async function findTenant(db: Db, tenantId: string): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', tenantId).executeTakeFirst();
}

/** The live tenant, or undefined (unknown or deleted). */
export async function findLiveTenant(db: Db, tenantId: string): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', tenantId).where('deleted_at', 'is', null).executeTakeFirst();
}

/** Every live tenant, oldest first. */
export async function listTenants(db: Db): Promise<TenantRow[]> {
  return db.selectFrom('tenants').selectAll().where('deleted_at', 'is', null).orderBy('created_at').orderBy('id').execute();
}

/** Marks the tenant deleted; false when it is unknown or already marked. */
export async function markTenantDeleted(db: Db, tenantId: string, now: string): Promise<boolean> {
  const marked = await db.updateTable('tenants').set({ deleted_at: now }).where('id', '=', tenantId).where('deleted_at', 'is', null).returning('id').executeTakeFirst();
  return marked !== undefined;
}
