import type { Db } from '../../store/db.js';
import { forbidden, notFound, unauthorized } from '../../errors.js';
import { findMemberRole } from '../../store/repos/tenant-members.js';
import { isApiTokenUnrevoked } from '../../store/repos/tenant-api-tokens.js';
import { findLiveTenant, lockTenant } from '../../store/repos/tenants.js';
import type { TenantRole, TenantRow } from '../../store/types.js';

// Who may do what in a tenant (docs/management.md). One table of rights, one function that asks it: every
// management route and every Secret route reached with a Console credential goes through `requireRight`.

export type { TenantRole };
export const TENANT_ROLES: readonly TenantRole[] = ['owner', 'admin', 'viewer'];

/** Who acted, as events name it: a member by user id, a token by token_id, the operator. */
export interface Actor {
  type: 'member' | 'token' | 'operator';
  id: string | null;
}

/**
 * A caller of the Management API, resolved from its credential by services/credentials.ts: the operator
 * (ADMIN_TOKEN, or a console user the operator named), a console user (a member of some tenants), or a
 * tenant API token (one tenant, one role).
 */
export interface ConsoleCaller {
  actor: Actor;
  /** Reaches every tenant with every right. */
  operator: boolean;
  /** The console user behind the credential (a member, or an operator signed in to the console). */
  userId?: string;
  /** A tenant API token's own tenant and role, and the member who made it (null: ADMIN_TOKEN, or before migration 0045). */
  token?: { tenantId: string; role: TenantRole; createdBy: string | null };
}

/**
 * The member a token or invitation made by `caller` is recorded as made by (`created_by`): the console
 * user, or the member behind a tenant API token; null for ADMIN_TOKEN. What they made goes when they do
 * (services/management/creator-grants.ts).
 */
export const creatorOf = (caller: ConsoleCaller): string | null => (caller.token ? caller.token.createdBy : (caller.userId ?? null));

/** Roles from the highest: a role outranks those after it. */
const RANKED: readonly TenantRole[] = ['owner', 'admin', 'viewer'];

/** The roles that outrank `role` (none for owner). */
export const rolesAbove = (role: TenantRole): TenantRole[] => RANKED.slice(0, RANKED.indexOf(role));

/** read: every role; write: owner and admin; owner: tenant deletion, granting or removing `owner`. */
export type Right = 'read' | 'write' | 'owner';

const RIGHTS: Record<TenantRole, readonly Right[]> = {
  owner: ['read', 'write', 'owner'],
  admin: ['read', 'write'],
  viewer: ['read'],
};

export const roleHas = (role: TenantRole, right: Right): boolean => RIGHTS[role].includes(right);

/** The caller's role in the tenant (the operator counts as owner), or undefined when it does not belong to it. */
export async function roleIn(db: Db, caller: ConsoleCaller, tenantId: string): Promise<TenantRole | undefined> {
  if (caller.operator) return 'owner';
  if (caller.token) return caller.token.tenantId === tenantId ? caller.token.role : undefined;
  return caller.userId === undefined ? undefined : findMemberRole(db, tenantId, caller.userId);
}

/**
 * The live tenant and the caller's role in it, when the role has `right`. A tenant the caller does not
 * belong to (or an unknown, deleted or the system tenant, to all but the operator) → 404, never an oracle;
 * a role without the right → 403.
 */
export async function requireRight(db: Db, caller: ConsoleCaller, tenantId: string, right: Right): Promise<{ tenant: TenantRow; role: TenantRole }> {
  const [tenant, role] = await Promise.all([findLiveTenant(db, tenantId), roleIn(db, caller, tenantId)]);
  if (!tenant || role === undefined || (tenant.system === 1 && !caller.operator)) throw notFound(`tenant ${tenantId} not found`);
  if (!roleHas(role, right)) throw forbidden(`the ${role} role may not do this (docs/management.md lists each role's routes)`);
  return { tenant, role };
}

/**
 * requireRight again inside a change's transaction, held to its commit: the tenant's row locked first
 * (lockTenant; SQLite's write transaction is serial anyway), then the caller's membership and role, or
 * its token, read again. A member removed or demoted, or a token revoked, while the request runs makes the
 * write wait and then refuses it (404 or 403 as requireRight, 401 for the revoked token), never half of it.
 */
export async function requireRightLocked(trx: Db, caller: ConsoleCaller, tenantId: string, right: Right): Promise<TenantRole> {
  await lockTenant(trx, tenantId);
  if (caller.token && caller.actor.id !== null && !(await isApiTokenUnrevoked(trx, tenantId, caller.actor.id))) {
    throw unauthorized('invalid, expired or revoked Console credential');
  }
  const role = await roleIn(trx, caller, tenantId);
  if (role === undefined) throw notFound(`tenant ${tenantId} not found`);
  if (!roleHas(role, right)) throw forbidden(`the ${role} role may not do this (docs/management.md lists each role's routes)`);
  return role;
}
