import type { Selectable } from 'kysely';

// Organisations (migration 0035; docs/organizations.md).

export interface OrganizationsTable {
  id: string;
  app_id: string;
  name: string;
  slug: string;
  /** A JSON object as text, at most 8 KiB: written by the Secret routes, read by members. */
  metadata: string;
  /** The counters the member cap and the last-owner rule change in the same write as the membership. */
  members_count: number;
  owners_count: number;
  created_at: string;
  updated_at: string;
  /** Set when the organisation is deleted: refused at once, purged in batches. */
  deleted_at: string | null;
}

export type OrganizationRow = Selectable<OrganizationsTable>;

export interface OrganizationMembersTable {
  organization_id: string;
  user_id: string;
  app_id: string;
  /** owner, admin, member, or the key of one of the app's custom roles. */
  role: string;
  created_at: string;
  updated_at: string;
}

export type OrganizationMemberRow = Selectable<OrganizationMembersTable>;

/** How many organisations a user is a member of (the cap of 100, one conditional upsert). */
export interface OrganizationUserCountsTable {
  app_id: string;
  user_id: string;
  organizations: number;
}

export interface OrganizationRolesTable {
  app_id: string;
  key: string;
  name: string;
  /** A JSON array of permission strings. */
  permissions: string;
  created_at: string;
  updated_at: string;
}

export type OrganizationRoleRow = Selectable<OrganizationRolesTable>;

export interface OrganizationInvitationsTable {
  id: string;
  app_id: string;
  organization_id: string;
  email: string;
  email_normalized: string;
  role: string;
  /** SHA-256 of the emailed token. */
  token_hash: string;
  status: 'pending' | 'accepted' | 'revoked';
  inviter_user_id: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

export type OrganizationInvitationRow = Selectable<OrganizationInvitationsTable>;
