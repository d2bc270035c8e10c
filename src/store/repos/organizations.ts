import { sql, type ExpressionBuilder, type UpdateObject } from 'kysely';
import { rowLimit } from '../limit.js';
import type { Db } from '../db.js';
import type { Database, OrganizationRow } from '../types.js';

// Organisations (docs/organizations.md): each statement scoped by app_id; a deleted organisation
// (deleted_at set) is found by none of them but the purge's.

/** An organisation with its role for one member (a member's view), or without (the server's). */
export interface OrganizationWithRole extends OrganizationRow {
  role: string;
  /** The custom role's permissions (JSON text), or null for a built-in role. */
  role_permissions: string | null;
}

const live = (eb: ExpressionBuilder<Database, 'organizations'>) => eb('organizations.deleted_at', 'is', null);

type OrganizationWrite = (eb: ExpressionBuilder<Database, 'organizations'>) => UpdateObject<Database, 'organizations'>;
const noChange: OrganizationWrite = (eb) => ({ owners_count: eb.ref('owners_count') });

/**
 * The write of the app's live organisation's row that every change of its members and invitations starts
 * with: `set` changes its counters (by default it changes nothing), and the write takes the row's lock on
 * PostgreSQL until the commit (SQLite serialises every writer). The caller adds its conditions and what it
 * returns; no row comes back when there is no live organisation (or a condition refused).
 */
export function writeLiveOrganization(trx: Db, appId: string, orgId: string, set: OrganizationWrite = noChange) {
  return trx.updateTable('organizations').set(set).where('id', '=', orgId).where('app_id', '=', appId).where(live);
}

export async function insertOrganization(db: Db, row: OrganizationRow): Promise<void> {
  await db.insertInto('organizations').values(row).execute();
}

/** The app's live organisation, or undefined. */
export async function findOrganization(db: Db, appId: string, orgId: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', orgId).where('app_id', '=', appId).where(live).executeTakeFirst();
}

/** The app's live organisation and `userId`'s membership of it (with the custom role's permissions), or undefined when not a member. */
export async function findMemberOrganization(db: Db, appId: string, orgId: string, userId: string): Promise<OrganizationWithRole | undefined> {
  return db
    .selectFrom('organizations')
    .innerJoin('organization_members as m', (join) => join.onRef('m.organization_id', '=', 'organizations.id').on('m.user_id', '=', userId))
    .leftJoin('organization_roles as r', (join) => join.onRef('r.app_id', '=', 'organizations.app_id').onRef('r.key', '=', 'm.role'))
    .selectAll('organizations')
    .select(['m.role as role', 'r.permissions as role_permissions'])
    .where('organizations.id', '=', orgId)
    .where('organizations.app_id', '=', appId)
    .where(live)
    .executeTakeFirst();
}

/**
 * Inside a change's transaction: locks the live organisation's row (which every membership change takes first,
 * so no member is added, removed or has their role changed until the commit), then reads `userId`'s membership
 * (null: none asked) and, for a custom role, its permissions under that role's row lock (a change of the role
 * waits too). What the caller checks then holds at its write. Undefined when there is no live organisation.
 */
export async function lockMemberOrganization(trx: Db, appId: string, orgId: string, userId: string | null): Promise<{ org: OrganizationRow; member?: { role: string; role_permissions: string | null } } | undefined> {
  const org = await writeLiveOrganization(trx, appId, orgId).returningAll().executeTakeFirst();
  if (!org || userId === null) return org && { org };
  const membership = await trx.selectFrom('organization_members').select('role').where('organization_id', '=', orgId).where('user_id', '=', userId).where('app_id', '=', appId).executeTakeFirst();
  if (!membership) return { org };
  const custom = await trx
    .updateTable('organization_roles')
    .set((eb) => ({ permissions: eb.ref('permissions') }))
    .where('app_id', '=', appId)
    .where('key', '=', membership.role)
    .returning('permissions')
    .executeTakeFirst();
  return { org, member: { role: membership.role, role_permissions: custom?.permissions ?? null } };
}

/** A page of the app's live organisations in id order after `afterId`, optionally the one with `slug`. */
export async function pageOrganizations(db: Db, appId: string, options: { afterId: string | null; limit: number; slug?: string }): Promise<OrganizationRow[]> {
  let query = db.selectFrom('organizations').selectAll().where('app_id', '=', appId).where(live);
  if (options.afterId !== null) query = query.where('id', '>', options.afterId);
  if (options.slug !== undefined) query = query.where('slug', '=', options.slug);
  return query.orderBy('id').limit(rowLimit(options.limit)).execute();
}

/** A page of the live organisations `userId` is a member of, with the role, in id order after `afterId`. */
export async function pageUserOrganizations(db: Db, appId: string, userId: string, afterId: string | null, limit: number): Promise<OrganizationWithRole[]> {
  let query = db
    .selectFrom('organization_members as m')
    .innerJoin('organizations', 'organizations.id', 'm.organization_id')
    .leftJoin('organization_roles as r', (join) => join.onRef('r.app_id', '=', 'm.app_id').onRef('r.key', '=', 'm.role'))
    .selectAll('organizations')
    .select(['m.role as role', 'r.permissions as role_permissions'])
    .where('m.app_id', '=', appId)
    .where('m.user_id', '=', userId)
    .where(live);
  if (afterId !== null) query = query.where('m.organization_id', '>', afterId);
  return query.orderBy('m.organization_id').limit(rowLimit(limit)).execute();
}

/** Changes name, slug or metadata of a live organisation; false when there is none. */
export async function updateOrganization(db: Db, appId: string, orgId: string, changes: { name?: string; slug?: string; metadata?: string; updated_at: string }): Promise<boolean> {
  const result = await db.updateTable('organizations').set(changes).where('id', '=', orgId).where('app_id', '=', appId).where(live).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Marks a live organisation deleted: every statement but the purge's stops finding it at once, on every
 * node (no cache). Its slug is free at once (the unique index covers live ones). False when there was none.
 */
export async function markOrganizationDeleted(db: Db, appId: string, orgId: string, now: string): Promise<boolean> {
  const result = await db.updateTable('organizations').set({ deleted_at: now, updated_at: now }).where('id', '=', orgId).where('app_id', '=', appId).where(live).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deleted organisations still to purge (any app), oldest first. */
export async function findDeletedOrganizations(db: Db, limit: number): Promise<{ id: string; app_id: string }[]> {
  return db.selectFrom('organizations').select(['id', 'app_id']).where('deleted_at', 'is not', null).orderBy('deleted_at').limit(rowLimit(limit)).execute();
}

/** Removes the organisation row itself (the purge's last step, once nothing of it is left). */
export async function deleteOrganizationRow(db: Db, appId: string, orgId: string): Promise<void> {
  await db.deleteFrom('organizations').where('id', '=', orgId).where('app_id', '=', appId).where('deleted_at', 'is not', null).execute();
}

/** The purge's check that the organisation is (still) marked deleted. */
export async function isOrganizationDeleted(db: Db, appId: string, orgId: string): Promise<boolean> {
  const row = await db.selectFrom('organizations').select('id').where('id', '=', orgId).where('app_id', '=', appId).where('deleted_at', 'is not', null).executeTakeFirst();
  return row !== undefined;
}

/** The owner key of an organisation's rows and objects, in the column that holds a user's id for theirs. */
export const orgOwnerKey = (orgId: string) => `org:${orgId}`;

/** The organisation of an owner key, or null for a user's (or no) owner. */
export const orgOfOwnerKey = (owner: string | null): string | null => (owner?.startsWith('org:') ? owner.slice(4) : null);

/**
 * SQL true when the session `sessionId` of `userId` has `orgId` as its active organisation, the user is a member
 * of it and it is a live organisation of `appId`: the data rules' check, inside the statement that reads or
 * writes the organisation's rows or objects (a removed member or a switched session is refused at once).
 */
export function isActiveMember(appId: string, orgId: string, userId: string, sessionId: string) {
  return sql<boolean>`exists (select 1 from sessions gs
    join organization_members gm on gm.organization_id = gs.active_org_id and gm.user_id = gs.user_id
    join organizations go on go.id = gm.organization_id
    where gs.id = ${sessionId} and gs.app_id = ${appId} and gs.user_id = ${userId} and gs.active_org_id = ${orgId}
      and gs.revoked_at is null and go.app_id = ${appId} and go.deleted_at is null)`;
}

/** SQL true while `orgId` is a live organisation of `appId` (the secret key's rule for an organisation's objects). */
export function isLiveOrganization(appId: string, orgId: string) {
  return sql<boolean>`exists (select 1 from organizations lo where lo.id = ${orgId} and lo.app_id = ${appId} and lo.deleted_at is null)`;
}
