import { badRequest } from '../../errors.js';
import type { MemberRow } from '../../store/repos/organization-members.js';
import type { OrganizationWithRole } from '../../store/repos/organizations.js';
import type { OrganizationInvitationRow, OrganizationRoleRow, OrganizationRow } from '../../store/types.js';
import { permissionsOf } from './permissions.js';

// The records of docs/organizations.md as the routes answer them, and the lists' cursors.

export interface OrganizationView {
  organization_id: string;
  name: string;
  slug: string;
  metadata: Record<string, unknown>;
  members_count: number;
  created_at: string;
  updated_at: string;
}

export const organizationView = (row: OrganizationRow): OrganizationView => ({
  organization_id: row.id,
  name: row.name,
  slug: row.slug,
  metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  members_count: Number(row.members_count),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** An organisation as one member sees it: with their role and its permissions. */
export const myOrganizationView = (row: OrganizationWithRole) => ({ ...organizationView(row), role: row.role, permissions: permissionsOf(row.role, row.role_permissions) });

export const memberView = (row: MemberRow) => ({
  organization_id: row.organization_id,
  user_id: row.user_id,
  email: row.email,
  role: row.role,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** An invitation's status as shown: a pending one past its expiry is `expired`. */
export const invitationView = (row: OrganizationInvitationRow, now: string) => ({
  invitation_id: row.id,
  organization_id: row.organization_id,
  email: row.email,
  role: row.role,
  status: row.status === 'pending' && row.expires_at <= now ? ('expired' as const) : row.status,
  expires_at: row.expires_at,
  created_at: row.created_at,
});

export const roleView = (row: OrganizationRoleRow) => ({
  key: row.key,
  name: row.name,
  permissions: permissionsOf(row.key, row.permissions),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** A list's cursor: the last id of the page, opaque to clients. */
export const encodeListCursor = (lastId: string) => Buffer.from(lastId, 'utf8').toString('base64url');

export function decodeListCursor(cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[0-9a-zA-Z_-]{1,64}$/.test(id)) throw badRequest('cursor is not one this list gave');
  return id;
}

/** One page of `limit` from `limit + 1` rows read: the page and the next cursor (or null). */
export function paged<T>(rows: T[], limit: number, idOf: (row: T) => string): { page: T[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  return { page, next_cursor: rows.length > limit ? encodeListCursor(idOf(page.at(-1)!)) : null };
}
