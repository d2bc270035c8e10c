import { iso } from '../../clock.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { findActiveOrganization, setActiveOrganization as writeActive, type ActiveOrganization } from '../../store/repos/active-organization.js';
import type { Application } from '../../store/repos/applications.js';
import { findUserById } from '../../store/repos/users.js';
import type { SessionContext } from '../credentials.js';
import { reissueAccess } from '../sessions/sessions.js';
import { requireOrganizations } from './organizations.js';
import { permissionsOf } from './permissions.js';

// The active organisation of a session (docs/organizations.md): set by POST /v1/sessions/active_organization,
// kept on the session row across refreshes, carried by its access tokens as org_* claims, shown by GET /v1/me.

export type { ActiveOrganization };

/** GET /v1/me's `organization`. */
export const organizationView = (active: ActiveOrganization | null | undefined) =>
  active ? { organization_id: active.id, slug: active.slug, role: active.role, permissions: permissionsOf(active.role, active.rolePermissions) } : null;

/** The session's active organisation, read now (null with organisations off). */
export async function activeOrganizationOf(deps: Pick<Deps, 'db'>, app: Application, sessionId: string): Promise<ActiveOrganization | null> {
  if (!app.organizationsEnabled) return null;
  return (await findActiveOrganization(deps.db, app.id, sessionId)) ?? null;
}

/**
 * Sets (or, with null, clears) the session's active organisation: one conditional write that passes only
 * while the user is a member (404 otherwise), then a new access token with the org claims.
 */
export async function setActiveOrganization(
  deps: Pick<Deps, 'db' | 'clock' | 'keys' | 'secrets'>,
  app: Application,
  session: SessionContext,
  orgId: string | null,
): Promise<{ access_token: string; expires_at: string }> {
  requireOrganizations(app);
  const written = await writeActive(deps.db, { appId: app.id, sessionId: session.sessionId, userId: session.userId, orgId, now: iso(deps.clock.now()) });
  if (!written) throw notFound(orgId === null ? 'session not found' : 'organization not found');
  const user = await findUserById(deps.db, app.id, session.userId);
  if (!user) throw notFound('user not found');
  return reissueAccess(deps, app.id, user, session.sessionId, session.amr, session.authTime, app.tokenClaims);
}
