// Tenant self-service (migration 0034, docs/management.md): members, invitations, API tokens, operators and
// the first-run setup links. Tokens are kept only as SHA-256 hashes.

export type TenantRole = 'owner' | 'admin' | 'viewer';

export interface TenantMembersTable {
  tenant_id: string;
  /** A user of the console app. */
  user_id: string;
  role: TenantRole;
  created_at: string;
}

export interface TenantInvitationsTable {
  id: string;
  tenant_id: string;
  email: string;
  email_normalized: string;
  role: TenantRole;
  token_hash: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by: string | null;
  revoked_at: string | null;
  /** The member who invited (null: ADMIN_TOKEN, or made before migration 0045). */
  created_by: string | null;
}

export interface TenantApiTokensTable {
  id: string;
  tenant_id: string;
  name: string;
  role: TenantRole;
  token_hash: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  /** The member who made it, or whose token made it (null: ADMIN_TOKEN, or made before migration 0045). */
  created_by: string | null;
}

export interface ConsoleOperatorsTable {
  user_id: string;
  created_at: string;
}

export interface ConsoleSetupTokensTable {
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}
