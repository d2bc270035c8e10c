import type { Db } from '../../store/db.js';
import { forbidden, notFound } from '../../errors.js';
import { findMemberRole } from '../../store/repos/tenant-members.js';
import { findLiveTenant } from '../../store/repos/tenants.js';
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
  /** A tenant API token's own tenant and role. */
  token?: { tenantId: string; role: TenantRole };
}

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
