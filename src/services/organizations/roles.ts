import { iso } from '../../clock.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import { isUniqueViolation } from '../../store/dialect.js';
import type { Application } from '../../store/repos/applications.js';
import * as roles from '../../store/repos/organization-roles.js';
import { inTransaction } from '../../store/transaction.js';
import { orgEvent, requireOrganizations, type OrgActor, type OrgDeps } from './organizations.js';
import { checkedPermissions, isBuiltInRole, ROLE_KEY } from './permissions.js';
import { roleView } from './views.js';

// An app's custom organisation roles (Secret; docs/organizations.md): a key, a name and the permissions
// it holds besides org:read. Each change writes its organization.role.* event in its own transaction
// (docs/events.md).

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100) throw badRequest('name must be 1 to 100 characters');
  return trimmed;
}

export async function createRole(deps: OrgDeps, app: Application, input: { key: string; name: string; permissions: string[] }, actor: OrgActor = { type: 'secret_key' }) {
  requireOrganizations(app);
  if (!ROLE_KEY.test(input.key)) throw badRequest(`key must match ${ROLE_KEY.source}`);
  if (isBuiltInRole(input.key)) throw conflict(`${input.key} is a built-in role`);
  const now = iso(deps.clock.now());
  const row = { app_id: app.id, key: input.key, name: checkedName(input.name), permissions: JSON.stringify(checkedPermissions(input.permissions)), created_at: now, updated_at: now };
  try {
    await inTransaction(deps.db, async (trx) => {
      await roles.insertRole(trx, row);
      await orgEvent(trx, deps, app, actor, 'organization.role.created', null, { key: row.key, permissions: roleView(row).permissions });
    });
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

export async function updateRole(deps: OrgDeps, app: Application, key: string, input: { name?: string; permissions?: string[] }, actor: OrgActor = { type: 'secret_key' }) {
  requireOrganizations(app);
  const changes = {
    ...(input.name === undefined ? {} : { name: checkedName(input.name) }),
    ...(input.permissions === undefined ? {} : { permissions: JSON.stringify(checkedPermissions(input.permissions)) }),
    updated_at: iso(deps.clock.now()),
  };
  const row = await inTransaction(deps.db, async (trx) => {
    const updated = await roles.updateRole(trx, app.id, key, changes);
    if (!updated) throw notFound('role not found');
    const changed = Object.keys(changes).filter((k) => k !== 'updated_at');
    await orgEvent(trx, deps, app, actor, 'organization.role.updated', null, { key, changed, permissions: roleView(updated).permissions });
    return updated;
  });
  return roleView(row);
}

/** Deletes a role no member or pending invitation holds (409 while one does). */
export async function deleteRole(deps: OrgDeps, app: Application, key: string, actor: OrgActor = { type: 'secret_key' }): Promise<void> {
  requireOrganizations(app);
  await inTransaction(deps.db, async (trx) => {
    const result = await roles.deleteRole(trx, app.id, key);
    if (result === 'missing') throw notFound('role not found');
    if (result === 'in_use') throw conflict('members or pending invitations hold this role: give them another first', 'role_in_use');
    await orgEvent(trx, deps, app, actor, 'organization.role.deleted', null, { key });
  });
}
