import { sql } from 'kysely';
import { rowLimit } from '../limit.js';
import type { Db } from '../db.js';
import type { OrganizationMemberRow } from '../types.js';
import { writeLiveOrganization } from './organizations.js';

// Memberships (docs/organizations.md). Every change of an organisation's members first writes the
// organisation's row (its counters), which takes that row's lock on PostgreSQL (SQLite serialises every
// writer): the membership changes of one organisation run one at a time, and each limit is a condition of
// the write that changes what it counts. Call these inside one transaction (services/organizations/).

/** A member as the routes show them: the membership and the user's email. */
export interface MemberRow extends OrganizationMemberRow {
  email: string | null;
}

export type AddRefusal = 'organization_full' | 'user_full' | 'already_member' | 'no_organization';

/**
 * Adds `userId` to the organisation with `role`: the organisation's members_count (and owners_count for an
 * owner) grows only below `maxMembers`, the user's count of organisations only below `maxPerUser`, and the
 * membership is inserted only if there is none; each refusal is named (the caller rolls back).
 */
export async function addMember(
  trx: Db,
  v: { appId: string; orgId: string; userId: string; role: string; now: string; maxMembers: number; maxPerUser: number },
): Promise<AddRefusal | undefined> {
  const owner = v.role === 'owner' ? 1 : 0;
  const counted = await writeLiveOrganization(trx, v.appId, v.orgId, (eb) => ({ members_count: eb('members_count', '+', 1), owners_count: eb('owners_count', '+', owner) }))
    .where('members_count', '<', v.maxMembers)
    .returning('id')
    .executeTakeFirst();
  if (!counted) {
    const org = await trx.selectFrom('organizations').select('id').where('id', '=', v.orgId).where('app_id', '=', v.appId).where('deleted_at', 'is', null).executeTakeFirst();
    return org ? 'organization_full' : 'no_organization';
  }
  const inserted = await trx
    .insertInto('organization_members')
    .values({ organization_id: v.orgId, user_id: v.userId, app_id: v.appId, role: v.role, created_at: v.now, updated_at: v.now })
    .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doNothing())
    .returning('user_id')
    .executeTakeFirst();
  if (!inserted) return 'already_member';
  const userCount = await trx
    .insertInto('organization_user_counts')
    .values({ app_id: v.appId, user_id: v.userId, organizations: 1 })
    .onConflict((oc) =>
      oc
        .columns(['app_id', 'user_id'])
        .doUpdateSet((eb) => ({ organizations: eb('organization_user_counts.organizations', '+', 1) }))
        .where('organization_user_counts.organizations', '<', v.maxPerUser),
    )
    .returning('organizations')
    .executeTakeFirst();
  return userCount ? undefined : 'user_full';
}

export type RemoveRefusal = 'not_member' | 'last_owner';

/**
 * Removes the membership. An owner's removal takes owners_count down only while another owner is left (the
 * last-owner rule, in the write itself); the user's count of organisations goes down with it, and any of the
 * user's sessions with this organisation active loses it.
 */
export async function removeMember(trx: Db, v: { appId: string; orgId: string; userId: string; now: string }): Promise<RemoveRefusal | undefined> {
  const locked = await writeLiveOrganization(trx, v.appId, v.orgId, (eb) => ({ members_count: eb('members_count', '-', 1) }))
    .returning('id')
    .executeTakeFirst();
  if (!locked) return 'not_member';
  const gone = await trx
    .deleteFrom('organization_members')
    .where('organization_id', '=', v.orgId)
    .where('user_id', '=', v.userId)
    .where('app_id', '=', v.appId)
    .returning('role')
    .executeTakeFirst();
  if (!gone) return 'not_member';
  if (gone.role === 'owner' && !(await dropOwner(trx, v.appId, v.orgId))) return 'last_owner';
  await trx
    .updateTable('organization_user_counts')
    .set((eb) => ({ organizations: eb('organizations', '-', 1) }))
    .where('app_id', '=', v.appId)
    .where('user_id', '=', v.userId)
    .execute();
  await clearActiveOrganization(trx, v.appId, v.orgId, v.userId);
  return undefined;
}

/** One owner fewer, only while another is left; false for the last one. */
async function dropOwner(trx: Db, appId: string, orgId: string): Promise<boolean> {
  const row = await trx
    .updateTable('organizations')
    .set((eb) => ({ owners_count: eb('owners_count', '-', 1) }))
    .where('id', '=', orgId)
    .where('app_id', '=', appId)
    .where('owners_count', '>', 1)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The sessions of `userId` (or every user's, with null) that have `orgId` active lose it. */
export async function clearActiveOrganization(trx: Db, appId: string, orgId: string, userId: string | null): Promise<void> {
  let query = trx.updateTable('sessions').set({ active_org_id: null }).where('app_id', '=', appId).where('active_org_id', '=', orgId);
  if (userId !== null) query = query.where('user_id', '=', userId);
  await query.execute();
}

/**
 * Changes the member's role. Demoting an owner takes owners_count down only while another is left;
 * promoting to owner adds one. Answers the role before, or a refusal.
 */
export async function changeMemberRole(trx: Db, v: { appId: string; orgId: string; userId: string; role: string; now: string }): Promise<RemoveRefusal | { before: string }> {
  const locked = await writeLiveOrganization(trx, v.appId, v.orgId).returning('id').executeTakeFirst();
  if (!locked) return 'not_member';
  const current = await trx.selectFrom('organization_members').select('role').where('organization_id', '=', v.orgId).where('user_id', '=', v.userId).executeTakeFirst();
  if (!current) return 'not_member';
  if (current.role === v.role) return { before: current.role };
  if (current.role === 'owner' && !(await dropOwner(trx, v.appId, v.orgId))) return 'last_owner';
  if (v.role === 'owner') {
    await trx.updateTable('organizations').set((eb) => ({ owners_count: eb('owners_count', '+', 1) })).where('id', '=', v.orgId).execute();
  }
  await trx.updateTable('organization_members').set({ role: v.role, updated_at: v.now }).where('organization_id', '=', v.orgId).where('user_id', '=', v.userId).execute();
  return { before: current.role };
}

/** The membership with the user's email, or undefined. */
export async function findMember(db: Db, appId: string, orgId: string, userId: string): Promise<MemberRow | undefined> {
  return db
    .selectFrom('organization_members as m')
    .leftJoin('users', (join) => join.onRef('users.id', '=', 'm.user_id').onRef('users.app_id', '=', 'm.app_id'))
    .selectAll('m')
    .select('users.email')
    .where('m.organization_id', '=', orgId)
    .where('m.user_id', '=', userId)
    .where('m.app_id', '=', appId)
    .executeTakeFirst();
}

/** A page of the organisation's members in user-id order after `afterUserId`. */
export async function pageMembers(db: Db, appId: string, orgId: string, afterUserId: string | null, limit: number): Promise<MemberRow[]> {
  let query = db
    .selectFrom('organization_members as m')
    .leftJoin('users', (join) => join.onRef('users.id', '=', 'm.user_id').onRef('users.app_id', '=', 'm.app_id'))
    .selectAll('m')
    .select('users.email')
    .where('m.organization_id', '=', orgId)
    .where('m.app_id', '=', appId);
  if (afterUserId !== null) query = query.where('m.user_id', '>', afterUserId);
  return query.orderBy('m.user_id').limit(rowLimit(limit)).execute();
}

/** Every membership of the user (their export), with the organisation's name and slug. */
export async function findUserMemberships(db: Db, appId: string, userId: string) {
  return db
    .selectFrom('organization_members as m')
    .innerJoin('organizations', 'organizations.id', 'm.organization_id')
    .select(['m.organization_id', 'm.role', 'm.created_at', 'm.updated_at', 'organizations.name', 'organizations.slug'])
    .where('m.app_id', '=', appId)
    .where('m.user_id', '=', userId)
    .where('organizations.deleted_at', 'is', null)
    .orderBy('m.organization_id')
    .execute();
}

/**
 * Deletes every membership of the user (their deletion), organisation by organisation in id order (the
 * order every writer takes organisation rows in), each organisation's counters taken down in the same
 * transaction. The last-owner rule does not hold a deleted user.
 */
export async function deleteUserMemberships(trx: Db, appId: string, userId: string): Promise<number> {
  const memberships = await trx.selectFrom('organization_members').select(['organization_id', 'role']).where('app_id', '=', appId).where('user_id', '=', userId).orderBy('organization_id').execute();
  for (const m of memberships) {
    const owner = m.role === 'owner' ? 1 : 0;
    await trx
      .updateTable('organizations')
      .set((eb) => ({ members_count: eb('members_count', '-', 1), owners_count: sql<number>`case when owners_count > ${owner} then owners_count - ${owner} else 0 end` }))
      .where('id', '=', m.organization_id)
      .execute();
    await trx.deleteFrom('organization_members').where('organization_id', '=', m.organization_id).where('user_id', '=', userId).execute();
  }
  await trx.deleteFrom('organization_user_counts').where('app_id', '=', appId).where('user_id', '=', userId).execute();
  return memberships.length;
}

/** Purge: up to `limit` memberships of a deleted organisation, each user's count taken down; answers how many went. */
export async function purgeMembershipBatch(trx: Db, appId: string, orgId: string, limit: number): Promise<number> {
  const batch = await trx.selectFrom('organization_members').select('user_id').where('organization_id', '=', orgId).where('app_id', '=', appId).orderBy('user_id').limit(rowLimit(limit)).execute();
  if (batch.length === 0) return 0;
  const users = batch.map((m) => m.user_id);
  await trx.deleteFrom('organization_members').where('organization_id', '=', orgId).where('user_id', 'in', users).execute();
  await trx
    .updateTable('organization_user_counts')
    .set((eb) => ({ organizations: eb('organizations', '-', 1) }))
    .where('app_id', '=', appId)
    .where('user_id', 'in', users)
    .execute();
  return batch.length;
}
