import { badRequest, forbidden } from '../../errors.js';

// Roles and permissions of organisations (docs/organizations.md). Built-in roles and what each may do;
// a custom role (organization_roles) holds org:read plus the strings it lists.

export const BUILT_IN_ROLES = ['owner', 'admin', 'member'] as const;
export type BuiltInRole = (typeof BUILT_IN_ROLES)[number];

export const BUILT_IN_PERMISSIONS = ['org:read', 'org:update', 'org:delete', 'org:members:manage', 'org:invitations:manage'] as const;
export type Permission = (typeof BUILT_IN_PERMISSIONS)[number];

const ROLE_PERMISSIONS: Record<BuiltInRole, string[]> = {
  owner: ['org:read', 'org:update', 'org:delete', 'org:members:manage', 'org:invitations:manage'],
  admin: ['org:read', 'org:update', 'org:members:manage', 'org:invitations:manage'],
  member: ['org:read'],
};

export const isBuiltInRole = (role: string): role is BuiltInRole => (BUILT_IN_ROLES as readonly string[]).includes(role);

/** The permissions of a role: a built-in one's, or org:read and a custom role's own (its stored JSON array). */
export function permissionsOf(role: string, customPermissions: string | null): string[] {
  if (isBuiltInRole(role)) return [...ROLE_PERMISSIONS[role]];
  const own = customPermissions === null ? [] : (JSON.parse(customPermissions) as string[]);
  return ['org:read', ...own.filter((p) => p !== 'org:read')];
}

/** 403 unless the member's role holds `permission`. */
export function requirePermission(member: { role: string; role_permissions: string | null }, permission: Permission): void {
  if (!permissionsOf(member.role, member.role_permissions).includes(permission)) {
    throw forbidden(`your role in this organization lacks the permission ${permission}`);
  }
}

export const ROLE_KEY = /^[a-z][a-z0-9_]{0,39}$/;
export const PERMISSION = /^[a-z][a-z0-9:._-]{0,63}$/;

/** A custom role's permissions, checked: at most 50 distinct strings of the PERMISSION pattern. */
export function checkedPermissions(permissions: string[]): string[] {
  if (permissions.length > 50) throw badRequest('a role holds at most 50 permissions');
  for (const p of permissions) if (!PERMISSION.test(p)) throw badRequest(`permission ${JSON.stringify(p).slice(0, 80)} must match ${PERMISSION.source}`);
  return [...new Set(permissions)];
}
