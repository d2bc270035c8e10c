// The records of docs/organizations.md as the API answers them, and the addresses of the organisation pages.
import type { Ok } from '@gatehouse/api-types';

export type Organization = Ok<'getOrganization'>;
export type OrgMember = Ok<'listOrganizationMembers'>['members'][number];
export type OrgInvitation = Ok<'listOrganizationInvitations'>['invitations'][number];
export type OrgRole = Ok<'listOrganizationRoles'>['roles'][number];

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
