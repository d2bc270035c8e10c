import type { Db } from '../db.js';

// The active organisation of a session (docs/organizations.md): sessions.active_org_id, read with the
// membership and the organisation so a removed member or a deleted organisation reads as none at once.

/** The session's active organisation as its tokens and GET /v1/me show it. */
export interface ActiveOrganization {
  id: string;
  slug: string;
  role: string;
  /** A custom role's permissions (JSON), or null for a built-in role. */
  rolePermissions: string | null;
}

/** The session's active organisation, while the user is a member of it, it is live and the app has organisations on; else undefined. */
export async function findActiveOrganization(db: Db, appId: string, sessionId: string): Promise<ActiveOrganization | undefined> {
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('organization_members as m', (join) => join.onRef('m.organization_id', '=', 's.active_org_id').onRef('m.user_id', '=', 's.user_id'))
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .innerJoin('applications as a', 'a.id', 's.app_id')
    .leftJoin('organization_roles as r', (join) => join.onRef('r.app_id', '=', 'o.app_id').onRef('r.key', '=', 'm.role'))
    .select(['o.id', 'o.slug', 'm.role', 'r.permissions'])
    .where('s.id', '=', sessionId)
    .where('s.app_id', '=', appId)
    .where('o.app_id', '=', appId)
    .where('o.deleted_at', 'is', null)
    .where('a.organizations_enabled', '=', 1)
    .executeTakeFirst();
  return row && { id: row.id, slug: row.slug, role: row.role, rolePermissions: row.permissions };
}

/**
 * Makes `orgId` the live session's active organisation, in one conditional write that only passes while the
 * user is a member of that live organisation of the app; null clears it. False when nothing was written.
 */
export async function setActiveOrganization(db: Db, v: { appId: string; sessionId: string; userId: string; orgId: string | null; now: string }): Promise<boolean> {
  let query = db
    .updateTable('sessions')
    .set({ active_org_id: v.orgId })
    .where('id', '=', v.sessionId)
    .where('app_id', '=', v.appId)
    .where('user_id', '=', v.userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', v.now);
  if (v.orgId !== null) {
    const orgId = v.orgId;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('organization_members as m')
          .innerJoin('organizations as o', 'o.id', 'm.organization_id')
          .select('m.user_id')
          .where('m.organization_id', '=', orgId)
          .where('m.user_id', '=', v.userId)
          .where('o.app_id', '=', v.appId)
          .where('o.deleted_at', 'is', null),
      ),
    );
  }
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
