import type { Db } from '../db.js';
import type { OrganizationRoleRow } from '../types.js';

// An app's custom organisation roles (docs/organizations.md), keyed by (app_id, key).

export async function insertRole(db: Db, row: OrganizationRoleRow): Promise<void> {
  await db.insertInto('organization_roles').values(row).execute();
}

export async function findRole(db: Db, appId: string, key: string): Promise<OrganizationRoleRow | undefined> {
  return db.selectFrom('organization_roles').selectAll().where('app_id', '=', appId).where('key', '=', key).executeTakeFirst();
}

export async function listRoles(db: Db, appId: string): Promise<OrganizationRoleRow[]> {
  return db.selectFrom('organization_roles').selectAll().where('app_id', '=', appId).orderBy('key').execute();
}

/** Changes name or permissions; undefined when the app has no such role. */
export async function updateRole(db: Db, appId: string, key: string, changes: { name?: string; permissions?: string; updated_at: string }): Promise<OrganizationRoleRow | undefined> {
  return db.updateTable('organization_roles').set(changes).where('app_id', '=', appId).where('key', '=', key).returningAll().executeTakeFirst();
}

/** Deletes the role while no membership or pending invitation holds it (in the same statement); 'in_use' or 'missing' otherwise. */
export async function deleteRole(db: Db, appId: string, key: string): Promise<'deleted' | 'in_use' | 'missing'> {
  const gone = await db
    .deleteFrom('organization_roles')
    .where('app_id', '=', appId)
    .where('key', '=', key)
    .where((eb) =>
      eb.not(
        eb.or([
          eb.exists(eb.selectFrom('organization_members').select('user_id').where('app_id', '=', appId).where('role', '=', key)),
          eb.exists(eb.selectFrom('organization_invitations').select('id').where('app_id', '=', appId).where('role', '=', key).where('status', '=', 'pending')),
        ]),
      ),
    )
    .returning('key')
    .executeTakeFirst();
  if (gone) return 'deleted';
  return (await findRole(db, appId, key)) ? 'in_use' : 'missing';
}
