// The records of docs/organizations.md as the console reads them, and the addresses of the organisation pages.
export interface Organization {
  organization_id: string;
  name: string;
  slug: string;
  metadata: Record<string, unknown>;
  members_count: number;
  created_at: string;
  updated_at: string;
}

export interface OrgMember {
  organization_id: string;
  user_id: string;
  email: string | null;
  role: string;
  created_at: string;
}

export interface OrgInvitation {
  invitation_id: string;
  email: string;
  role: string;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  expires_at: string;
  created_at: string;
}

export interface OrgRole {
  key: string;
  name: string;
  permissions: string[];
}

export const orgsHref = (tenantId: string, appId: string) => `/t/${tenantId}/apps/${appId}/organizations`;
export const orgHref = (tenantId: string, appId: string, orgId: string) => `${orgsHref(tenantId, appId)}/${orgId}`;

/** The built-in roles, then the app's custom ones, as [key, text] for a select. */
export function roleOptions(custom: OrgRole[] | undefined): [string, string][] {
  return [
    ['member', 'member: reads the organisation'],
    ['admin', 'admin: renames, manages members and invitations'],
    ['owner', 'owner: everything, deleting it too'],
    ...(custom ?? []).map((r): [string, string] => [r.key, `${r.key}: ${r.name} (custom)`]),
  ];
}

/** A comma (or space) separated list of permission strings, as the API takes it. */
export const parsePermissions = (text: string) => text.split(/[\s,]+/).filter(Boolean);
