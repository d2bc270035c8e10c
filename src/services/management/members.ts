import { badRequest, conflict, forbidden, notFound } from '../../errors.js';
import * as members from '../../store/repos/tenant-members.js';
import { inTransaction } from '../../store/transaction.js';
import { findConsoleAppId } from './console-app.js';
import { requireRight, requireRightLocked, roleHas, TENANT_ROLES, type ConsoleCaller, type TenantRole } from './roles.js';
import { revokeGrantsBeyond } from './creator-grants.js';
import type { ManagementDeps } from './tenants.js';
import type { EventContext } from '../events/types.js';
import { recordTenantEvent } from './events.js';

// A tenant's members (docs/management.md). The last owner stays: every change of an owner locks the tenant's
// row first (lockTenant), so two requests at once cannot each remove one of the last two owners, and the
// caller's own role is read again under that lock (requireRightLocked). Removing or demoting a member revokes
// what they made beyond their new role in the same transaction (creator-grants.ts).

export interface MemberView {
  user_id: string;
  email: string | null;
  role: TenantRole;
  created_at: string;
}

const view = (row: members.MemberRow): MemberView => ({ user_id: row.user_id, email: row.email, role: row.role, created_at: row.created_at });

export function checkedRole(role: string): TenantRole {
  if (!(TENANT_ROLES as readonly string[]).includes(role)) throw badRequest('role must be owner, admin or viewer');
  return role as TenantRole;
}

async function consoleApp(deps: ManagementDeps): Promise<string> {
  return (await findConsoleAppId(deps.db)) ?? '';
}

export async function listMembersOf(deps: ManagementDeps, caller: ConsoleCaller, tenantId: string): Promise<{ members: MemberView[] }> {
  await requireRight(deps.db, caller, tenantId, 'read');
  return { members: (await members.listMembers(deps.db, tenantId, await consoleApp(deps))).map(view) };
}

/** Whether the caller's role may touch a member of `role` (or grant it): `owner` is the owners' alone. */
function mayTouch(callerRole: TenantRole, role: TenantRole): boolean {
  return role !== 'owner' || roleHas(callerRole, 'owner');
}

/** Changes a member's role; 409 when it would leave the tenant without an owner. */
export async function changeMemberRole(deps: ManagementDeps, caller: ConsoleCaller, tenantId: string, userId: string, role: string, context: EventContext): Promise<MemberView> {
  const next = checkedRole(role);
  await requireRight(deps.db, caller, tenantId, 'write');
  const consoleAppId = await consoleApp(deps);
  return inTransaction(deps.db, async (trx) => {
    const callerRole = await requireRightLocked(trx, caller, tenantId, 'write');
    const member = await members.findMember(trx, tenantId, userId, consoleAppId);
    if (!member) throw notFound(`member ${userId} not found`);
    if (!mayTouch(callerRole, member.role) || !mayTouch(callerRole, next)) throw forbidden('only an owner grants or removes the owner role');
    if (member.role === 'owner' && next !== 'owner' && (await members.countOwners(trx, tenantId)) <= 1) {
      throw conflict('the last owner of a tenant cannot be demoted: make another member owner first', 'last_owner');
    }
    await members.updateMemberRole(trx, tenantId, userId, next);
    const at = deps.clock.now();
    await recordTenantEvent(trx, context, tenantId, 'tenant.member.updated', { user_id: userId, role: next, previous_role: member.role }, at);
    await revokeGrantsBeyond(trx, context, tenantId, userId, next, at);
    return view({ ...member, role: next });
  });
}

/** Removes a member (a member may remove themself, whatever their role); 409 for the last owner. */
export async function removeMember(deps: ManagementDeps, caller: ConsoleCaller, tenantId: string, userId: string, context: EventContext): Promise<MemberView> {
  const self = caller.userId === userId;
  await requireRight(deps.db, caller, tenantId, self ? 'read' : 'write');
  const consoleAppId = await consoleApp(deps);
  return inTransaction(deps.db, async (trx) => {
    const callerRole = await requireRightLocked(trx, caller, tenantId, self ? 'read' : 'write');
    const member = await members.findMember(trx, tenantId, userId, consoleAppId);
    if (!member) throw notFound(`member ${userId} not found`);
    if (!self && !mayTouch(callerRole, member.role)) throw forbidden('only an owner removes an owner');
    if (member.role === 'owner' && (await members.countOwners(trx, tenantId)) <= 1) {
      throw conflict('the last owner of a tenant cannot be removed: make another member owner first', 'last_owner');
    }
    await members.deleteMember(trx, tenantId, userId);
    const at = deps.clock.now();
    await recordTenantEvent(trx, context, tenantId, 'tenant.member.deleted', { user_id: userId, role: member.role }, at);
    await revokeGrantsBeyond(trx, context, tenantId, userId, undefined, at);
    return view(member);
  });
}
