import type { Db } from '../db.js';
import type { TenantMembersTable, TenantRole } from '../types.js';

// A console user's role in a tenant (docs/management.md). Every statement is scoped by the tenant.

export interface MemberRow extends TenantMembersTable {
  email: string | null;
}

/** The member's role in the tenant, or undefined when the user is not a member. */
export async function findMemberRole(db: Db, tenantId: string, userId: string): Promise<TenantRole | undefined> {
  const row = await db.selectFrom('tenant_members').select('role').where('tenant_id', '=', tenantId).where('user_id', '=', userId).executeTakeFirst();
  return row?.role;
}

/** Adds the member; false when the user was a member already (the role stays as it was). */
export async function insertMember(db: Db, row: TenantMembersTable): Promise<boolean> {
  const rows = await db
    .insertInto('tenant_members')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'user_id']).doNothing())
    .returning('user_id')
    .execute();
  return rows.length === 1;
}

/** The tenant's members with their console email (users of `consoleAppId`), oldest first. */
export async function listMembers(db: Db, tenantId: string, consoleAppId: string): Promise<MemberRow[]> {
  return db
    .selectFrom('tenant_members')
    .leftJoin('users', (join) => join.onRef('users.id', '=', 'tenant_members.user_id').on('users.app_id', '=', consoleAppId))
    .select(['tenant_members.tenant_id', 'tenant_members.user_id', 'tenant_members.role', 'tenant_members.created_at', 'users.email'])
    .where('tenant_members.tenant_id', '=', tenantId)
    .orderBy('tenant_members.created_at')
    .orderBy('tenant_members.user_id')
    .execute();
}

/** One member with their console email, or undefined. */
export async function findMember(db: Db, tenantId: string, userId: string, consoleAppId: string): Promise<MemberRow | undefined> {
  return db
    .selectFrom('tenant_members')
    .leftJoin('users', (join) => join.onRef('users.id', '=', 'tenant_members.user_id').on('users.app_id', '=', consoleAppId))
    .select(['tenant_members.tenant_id', 'tenant_members.user_id', 'tenant_members.role', 'tenant_members.created_at', 'users.email'])
    .where('tenant_members.tenant_id', '=', tenantId)
    .where('tenant_members.user_id', '=', userId)
    .executeTakeFirst();
}

/** How many owners the tenant has (read under lockTenant when it decides a change). */
export async function countOwners(db: Db, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom('tenant_members')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Sets the member's role; false when the user is not a member. */
export async function updateMemberRole(db: Db, tenantId: string, userId: string, role: TenantRole): Promise<boolean> {
  const row = await db.updateTable('tenant_members').set({ role }).where('tenant_id', '=', tenantId).where('user_id', '=', userId).returning('user_id').executeTakeFirst();
  return row !== undefined;
}

/** Removes the member; false when the user was not one. */
export async function deleteMember(db: Db, tenantId: string, userId: string): Promise<boolean> {
  const row = await db.deleteFrom('tenant_members').where('tenant_id', '=', tenantId).where('user_id', '=', userId).returning('user_id').executeTakeFirst();
  return row !== undefined;
}

/** Deletes every membership of the user (a console user deleted), answering each tenant and role it had. */
export async function deleteMembershipsOfUser(db: Db, userId: string): Promise<{ tenant_id: string; role: TenantRole }[]> {
  return db.deleteFrom('tenant_members').where('user_id', '=', userId).returning(['tenant_id', 'role']).execute();
}
