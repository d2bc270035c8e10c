import type { Db } from '../db.js';
import type { Insertable } from 'kysely';
import type { TenantRole, TenantRow, TenantsTable } from '../types.js';
import { isSqlite } from '../db.js';

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

/** Every live tenant but the system one (the console app's), oldest first. */
export async function listTenants(db: Db): Promise<TenantRow[]> {
  return db.selectFrom('tenants').selectAll().where('deleted_at', 'is', null).where('system', '=', 0).orderBy('created_at').orderBy('id').execute();
}

/** A page of live tenants (the system one aside), by id, after `afterId`. */
export async function listTenantsPage(db: Db, limit: number, afterId: string | undefined): Promise<TenantRow[]> {
  let query = db.selectFrom('tenants').selectAll().where('deleted_at', 'is', null).where('system', '=', 0);
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return query.orderBy('id').limit(limit).execute();
}

/** The live tenants `userId` is a member of, with the role, oldest first. */
export async function listTenantsOfMember(db: Db, userId: string): Promise<(TenantRow & { role: TenantRole })[]> {
  return db
    .selectFrom('tenant_members')
    .innerJoin('tenants', 'tenants.id', 'tenant_members.tenant_id')
    .selectAll('tenants')
    .select('tenant_members.role')
    .where('tenant_members.user_id', '=', userId)
    .where('tenants.deleted_at', 'is', null)
    .orderBy('tenants.created_at')
    .orderBy('tenants.id')
    .execute();
}

/** Renames the live tenant; false when it is unknown or deleted. */
export async function updateTenantName(db: Db, tenantId: string, name: string): Promise<boolean> {
  const row = await db.updateTable('tenants').set({ name }).where('id', '=', tenantId).where('deleted_at', 'is', null).returning('id').executeTakeFirst();
  return row !== undefined;
}

/**
 * Holds the tenant's row until the transaction ends, so changes to its owners are made one after the other
 * (the last owner kept). PostgreSQL locks the row; SQLite's write transactions are serial already.
 */
export async function lockTenant(db: Db, tenantId: string): Promise<void> {
  if (isSqlite(db)) return;
  await db.selectFrom('tenants').select('id').where('id', '=', tenantId).forUpdate().execute();
}

/** Marks the tenant deleted; false when it is unknown or already marked. */
export async function markTenantDeleted(db: Db, tenantId: string, now: string): Promise<boolean> {
  const marked = await db.updateTable('tenants').set({ deleted_at: now }).where('id', '=', tenantId).where('deleted_at', 'is', null).returning('id').executeTakeFirst();
  return marked !== undefined;
}
