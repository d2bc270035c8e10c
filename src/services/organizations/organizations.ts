import { iso } from '../../clock.js';
import { newUuid, randomBase62 } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { ApiError, badRequest, conflict, forbidden, notFound } from '../../errors.js';
import { isUniqueViolation } from '../../store/dialect.js';
import type { Application } from '../../store/repos/applications.js';
import * as members from '../../store/repos/organization-members.js';
import * as orgs from '../../store/repos/organizations.js';
import { findUserById } from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import type { Db } from '../../store/db.js';
import { eventOf, recordEvent, type EventContext } from '../events/index.js';
import { metadataText } from '../accounts/metadata.js';
import { requirePermission, type Permission } from './permissions.js';
import { decodeListCursor, myOrganizationView, organizationView, paged, type OrganizationView } from './views.js';

// Organisations (docs/organizations.md): creation, reading, changes and deletion, for a member through
// Publishable + Session or for the server through the secret key.

export type OrgDeps = Pick<Deps, 'db' | 'clock' | 'config'>;

/** Who asks: a signed-in user (their session) or the app's secret key; `context` names them on the events (docs/events.md). */
export type OrgActor = ({ type: 'user'; userId: string; sessionId: string } | { type: 'secret_key' }) & { context?: EventContext };

/**
 * Records an organisation's event in the change's transaction (docs/events.md): `user_id` is the member it is
 * about, if any; `data` names the organisation and what changed, never an email.
 */
export async function orgEvent(trx: Db, deps: Pick<OrgDeps, 'clock'>, app: Application, actor: OrgActor, type: string, userId: string | null, data: Record<string, unknown>): Promise<void> {
  const context = actor.context ?? (actor.type === 'user' ? { actor: { type: 'user' as const, id: actor.userId }, ip: null, userAgent: null } : { actor: { type: 'secret_key' as const, id: null }, ip: null, userAgent: null });
  await recordEvent(trx, eventOf(context, { type, tenantId: app.tenantId, appId: app.id, userId, data }), deps.clock.now());
}

/** At most this many organisations per user (docs/organizations.md). */
export const MAX_ORGANIZATIONS_PER_USER = 100;

export const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Every organisation route of an app with organisations off answers 404, as if it did not exist. */
export function requireOrganizations(app: Application): void {
  if (!app.organizationsEnabled) throw new ApiError(404, 'route_not_found', 'organizations are not enabled for this application');
}

/** The live organisation as `actor` may see it: any for the server, a member's own for a user (404 otherwise), with the permission checked. */
export async function orgFor(deps: OrgDeps, appId: string, orgId: string, actor: OrgActor, permission: Permission = 'org:read') {
  if (actor.type === 'secret_key') {
    const org = await orgs.findOrganization(deps.db, appId, orgId);
    if (!org) throw notFound('organization not found');
    return { org, member: undefined };
  }
  const member = await orgs.findMemberOrganization(deps.db, appId, orgId, actor.userId);
  if (!member) throw notFound('organization not found');
  requirePermission(member, permission);
  return { org: member, member };
}

/**
 * The same rule as orgFor, inside the change's transaction and held to its commit: the organisation's row
 * locked first, then the actor's membership and role read (store/repos/organizations.ts
 * lockMemberOrganization), so a member demoted or removed, or a role changed, while the request runs makes
 * the write wait and then refuses it, never half of it (docs/organizations.md).
 */
export async function lockedOrgFor(trx: Db, appId: string, orgId: string, actor: OrgActor, permission: Permission = 'org:read') {
  const locked = await orgs.lockMemberOrganization(trx, appId, orgId, actor.type === 'user' ? actor.userId : null);
  if (!locked || (actor.type === 'user' && !locked.member)) throw notFound('organization not found');
  if (locked.member) requirePermission(locked.member, permission);
  return locked;
}

/** The slug a name gives when none is sent: lower-case letters and digits, dashes between. */
function slugOf(name: string): string {
  const base = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48).replace(/-+$/, '');
  return base || 'org';
}

export function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100) throw badRequest('name must be 1 to 100 characters');
  return trimmed;
}

export function checkedSlug(slug: string): string {
  if (!SLUG.test(slug)) throw badRequest(`slug must match ${SLUG.source}`);
  return slug;
}

const slugTaken = () => conflict('an organization of this application already has that slug', 'slug_taken');

/** Maps a refused membership insert to its answer. */
export function membershipRefused(refusal: members.AddRefusal): ApiError {
  switch (refusal) {
    case 'organization_full':
      return conflict('the organization has reached its member limit (ORG_MAX_MEMBERS)', 'member_limit_reached');
    case 'user_full':
      return conflict(`a user may be a member of at most ${MAX_ORGANIZATIONS_PER_USER} organizations`, 'organization_limit_reached');
    case 'already_member':
      return conflict('the user is already a member of this organization', 'already_member');
    default:
      return notFound('organization not found');
  }
}

/**
 * Creates an organisation; a user (or `ownerUserId`, for the server) becomes its owner in the same
 * transaction, the per-user cap checked by that write. `org_creation server` refuses users (403).
 */
export async function createOrganization(
  deps: OrgDeps,
  app: Application,
  actor: OrgActor,
  input: { name: string; slug?: string; ownerUserId?: string; metadata?: Record<string, unknown> },
): Promise<OrganizationView & { role?: string; permissions?: string[] }> {
  requireOrganizations(app);
  if (actor.type === 'user' && app.orgCreation === 'server') throw forbidden('organizations of this application are created by its server only (org_creation server)');
  const name = checkedName(input.name);
  const metadata = input.metadata === undefined ? '{}' : metadataText('metadata', input.metadata);
  const owner = actor.type === 'user' ? actor.userId : input.ownerUserId;
  if (owner !== undefined && actor.type === 'secret_key' && !(await findUserById(deps.db, app.id, owner))) throw notFound('user not found');
  const given = input.slug === undefined ? undefined : checkedSlug(input.slug);
  const now = iso(deps.clock.now());
  for (let attempt = 0; ; attempt++) {
    const slug = given ?? (attempt === 0 ? slugOf(name) : `${slugOf(name).slice(0, 40)}-${randomBase62(8).toLowerCase()}`);
    const row = { id: newUuid(), app_id: app.id, name, slug, metadata, members_count: 0, owners_count: 0, created_at: now, updated_at: now, deleted_at: null };
    try {
      await inTransaction(deps.db, async (trx) => {
        await orgs.insertOrganization(trx, row);
        await orgEvent(trx, deps, app, actor, 'organization.created', null, { organization_id: row.id, slug: row.slug });
        if (owner === undefined) return;
        const refused = await members.addMember(trx, limits(deps, { appId: app.id, orgId: row.id, userId: owner, role: 'owner', now }));
        if (refused) throw membershipRefused(refused);
        await orgEvent(trx, deps, app, actor, 'organization.membership.created', owner, { organization_id: row.id, role: 'owner' });
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (given !== undefined || attempt >= 3) throw slugTaken();
      continue;
    }
    const created = { ...row, members_count: owner === undefined ? 0 : 1 };
    return actor.type === 'user' ? myOrganizationView({ ...created, role: 'owner', role_permissions: null }) : organizationView(created);
  }
}

/** A membership write's values with the caps. */
export const limits = <T extends object>(deps: OrgDeps, values: T) => ({ ...values, maxMembers: deps.config.orgMaxMembers, maxPerUser: MAX_ORGANIZATIONS_PER_USER });

export async function getOrganization(deps: OrgDeps, app: Application, actor: OrgActor, orgId: string) {
  requireOrganizations(app);
  const { org, member } = await orgFor(deps, app.id, orgId, actor);
  return member ? myOrganizationView(member) : organizationView(org);
}

/** Changes name and slug (org:update), and metadata (the server only: members read it). */
export async function updateOrganization(deps: OrgDeps, app: Application, actor: OrgActor, orgId: string, input: { name?: string; slug?: string; metadata?: Record<string, unknown> }) {
  requireOrganizations(app);
  await orgFor(deps, app.id, orgId, actor, 'org:update');
  if (input.metadata !== undefined && actor.type === 'user') throw forbidden('metadata of an organization is written by the server (secret key)');
  const changes = {
    ...(input.name === undefined ? {} : { name: checkedName(input.name) }),
    ...(input.slug === undefined ? {} : { slug: checkedSlug(input.slug) }),
    ...(input.metadata === undefined ? {} : { metadata: metadataText('metadata', input.metadata) }),
    updated_at: iso(deps.clock.now()),
  };
  try {
    await inTransaction(deps.db, async (trx) => {
      await lockedOrgFor(trx, app.id, orgId, actor, 'org:update');
      if (!(await orgs.updateOrganization(trx, app.id, orgId, changes))) throw notFound('organization not found');
      await orgEvent(trx, deps, app, actor, 'organization.updated', null, { organization_id: orgId, changed: Object.keys(changes).filter((k) => k !== 'updated_at') });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken();
    throw error;
  }
  return getOrganization(deps, app, actor, orgId);
}

/**
 * Deletes an organisation (org:delete): marked at once, so every statement on every node stops finding it
 * and its members' data; memberships, invitations, rows and objects are purged in batches
 * (services/organizations/purge.ts).
 */
export async function deleteOrganization(deps: OrgDeps, app: Application, actor: OrgActor, orgId: string): Promise<void> {
  requireOrganizations(app);
  await orgFor(deps, app.id, orgId, actor, 'org:delete');
  await inTransaction(deps.db, async (trx) => {
    await lockedOrgFor(trx, app.id, orgId, actor, 'org:delete');
    if (!(await orgs.markOrganizationDeleted(trx, app.id, orgId, iso(deps.clock.now())))) throw notFound('organization not found');
    await orgEvent(trx, deps, app, actor, 'organization.deleted', null, { organization_id: orgId });
  });
}

/** GET /v1/organizations (Secret): the app's organisations, a page at a time, or the one with `slug`. */
export async function listOrganizations(deps: OrgDeps, app: Application, options: { limit: number; cursor?: string; slug?: string }) {
  requireOrganizations(app);
  const rows = await orgs.pageOrganizations(deps.db, app.id, { afterId: decodeListCursor(options.cursor), limit: options.limit + 1, slug: options.slug });
  const { page, next_cursor } = paged(rows, options.limit, (row) => row.id);
  return { organizations: page.map(organizationView), next_cursor };
}

/** The organisations `userId` is a member of, with the role in each (GET /v1/me/organizations, GET /v1/users/{id}/organizations). */
export async function listUserOrganizations(deps: OrgDeps, app: Application, userId: string, options: { limit: number; cursor?: string }, checkUser = false) {
  requireOrganizations(app);
  if (checkUser && !(await findUserById(deps.db, app.id, userId))) throw notFound('user not found');
  const rows = await orgs.pageUserOrganizations(deps.db, app.id, userId, decodeListCursor(options.cursor), options.limit + 1);
  const { page, next_cursor } = paged(rows, options.limit, (row) => row.id);
  return { organizations: page.map(myOrganizationView), next_cursor };
}
