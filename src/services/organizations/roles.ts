import { iso } from '../../clock.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import { isUniqueViolation } from '../../store/dialect.js';
import type { Application } from '../../store/repos/applications.js';
import * as roles from '../../store/repos/organization-roles.js';
import { requireOrganizations, type OrgDeps } from './organizations.js';
import { checkedPermissions, isBuiltInRole, ROLE_KEY } from './permissions.js';
import { roleView } from './views.js';

// An app's custom organisation roles (Secret; docs/organizations.md): a key, a name and the permissions
// it holds besides org:read.

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100) throw badRequest('name must be 1 to 100 characters');
  return trimmed;
}

export async function createRole(deps: OrgDeps, app: Application, input: { key: string; name: string; permissions: string[] }) {
  requireOrganizations(app);
  if (!ROLE_KEY.test(input.key)) throw badRequest(`key must match ${ROLE_KEY.source}`);
  if (isBuiltInRole(input.key)) throw conflict(`${input.key} is a built-in role`);
  const now = iso(deps.clock.now());
  const row = { app_id: app.id, key: input.key, name: checkedName(input.name), permissions: JSON.stringify(checkedPermissions(input.permissions)), created_at: now, updated_at: now };
  try {
    await roles.insertRole(deps.db, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('the application already has a role with this key');
    throw error;
  }
  return roleView(row);
}

export async function listRoles(deps: OrgDeps, app: Application) {
  requireOrganizations(app);
  return { roles: (await roles.listRoles(deps.db, app.id)).map(roleView) };
}

export async function updateRole(deps: OrgDeps, app: Application, key: string, input: { name?: string; permissions?: string[] }) {
  requireOrganizations(app);
  const changes = {
    ...(input.name === undefined ? {} : { name: checkedName(input.name) }),
    ...(input.permissions === undefined ? {} : { permissions: JSON.stringify(checkedPermissions(input.permissions)) }),
    updated_at: iso(deps.clock.now()),
  };
  const row = await roles.updateRole(deps.db, app.id, key, changes);
  if (!row) throw notFound('role not found');
  return roleView(row);
}

/** Deletes a role no member or pending invitation holds (409 while one does). */
export async function deleteRole(deps: OrgDeps, app: Application, key: string): Promise<void> {
  requireOrganizations(app);
  const result = await roles.deleteRole(deps.db, app.id, key);
  if (result === 'missing') throw notFound('role not found');
  if (result === 'in_use') throw conflict('members or pending invitations hold this role: give them another first', 'role_in_use');
}
