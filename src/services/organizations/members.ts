import { iso } from '../../clock.js';
import { badRequest, conflict, forbidden, notFound } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import * as members from '../../store/repos/organization-members.js';
import { findRole } from '../../store/repos/organization-roles.js';
import { findUserById } from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import { limits, lockedOrgFor, membershipRefused, orgEvent, orgFor, requireOrganizations, type OrgActor, type OrgDeps } from './organizations.js';
import { isBuiltInRole } from './permissions.js';
import { decodeListCursor, memberView, paged } from './views.js';

// The members of an organisation (docs/organizations.md): listed by any member, changed with
// org:members:manage (anyone may remove themself), added directly by the server only. The last owner
// can neither leave, be removed nor be demoted (409 last_owner), a rule the write itself holds; the
// actor's permission is read again under the organisation's lock in the write's transaction (lockedOrgFor).

/** 400 unless `role` is a built-in role or one of the app's custom roles. */
export async function checkedRole(deps: OrgDeps, appId: string, role: string): Promise<string> {
  if (isBuiltInRole(role) || (await findRole(deps.db, appId, role))) return role;
  throw badRequest(`role ${JSON.stringify(role).slice(0, 60)} is neither owner, admin, member nor one of the application's roles`);
}

const lastOwner = () => conflict('the last owner of an organization cannot leave, be removed or be demoted; make another member owner first', 'last_owner');

/** Only an owner may make an owner, or change or remove one (an admin managing members cannot). */
function refuseOwnerChange(actorRole: string | undefined, ...roles: string[]): void {
  if (actorRole !== undefined && actorRole !== 'owner' && roles.includes('owner')) throw forbidden('only an owner may make an owner, or change or remove one');
}

export async function listMembers(deps: OrgDeps, app: Application, actor: OrgActor, orgId: string, options: { limit: number; cursor?: string }) {
  requireOrganizations(app);
  await orgFor(deps, app.id, orgId, actor);
  const rows = await members.pageMembers(deps.db, app.id, orgId, decodeListCursor(options.cursor), options.limit + 1);
  const { page, next_cursor } = paged(rows, options.limit, (row) => row.user_id);
  return { members: page.map(memberView), next_cursor };
}

async function memberOrThrow(deps: OrgDeps, appId: string, orgId: string, userId: string) {
  const member = await members.findMember(deps.db, appId, orgId, userId);
  if (!member) throw notFound('member not found');
  return memberView(member);
}

/** POST /v1/organizations/{id}/members (Secret): adds an existing user of the app with a role. */
export async function addMember(deps: OrgDeps, app: Application, orgId: string, input: { userId: string; role: string }, actor: OrgActor = { type: 'secret_key' }) {
  requireOrganizations(app);
  await orgFor(deps, app.id, orgId, { type: 'secret_key' });
  const role = await checkedRole(deps, app.id, input.role);
  if (!(await findUserById(deps.db, app.id, input.userId))) throw notFound('user not found');
  const now = iso(deps.clock.now());
  await inTransaction(deps.db, async (trx) => {
    const refused = await members.addMember(trx, limits(deps, { appId: app.id, orgId, userId: input.userId, role, now }));
    if (refused) throw membershipRefused(refused);
    await orgEvent(trx, deps, app, actor, 'organization.membership.created', input.userId, { organization_id: orgId, role });
  });
  return memberOrThrow(deps, app.id, orgId, input.userId);
}

/** PATCH .../members/{user_id} {role}: org:members:manage; the last owner stays. */
export async function changeRole(deps: OrgDeps, app: Application, actor: OrgActor, orgId: string, userId: string, input: { role: string }) {
  requireOrganizations(app);
  await orgFor(deps, app.id, orgId, actor, 'org:members:manage');
  const role = await checkedRole(deps, app.id, input.role);
  await inTransaction(deps.db, async (trx) => {
    // The permission and the owner rule, read under the organisation's lock: they hold at the write.
    const { member } = await lockedOrgFor(trx, app.id, orgId, actor, 'org:members:manage');
    const target = await members.findMember(trx, app.id, orgId, userId);
    if (!target) throw notFound('member not found');
    refuseOwnerChange(member?.role, role, target.role);
    const changed = await members.changeMemberRole(trx, { appId: app.id, orgId, userId, role, now: iso(deps.clock.now()) });
    if (changed === 'not_member') throw notFound('member not found');
    if (changed === 'last_owner') throw lastOwner();
    if (changed.before !== role) await orgEvent(trx, deps, app, actor, 'organization.membership.updated', userId, { organization_id: orgId, role, previous_role: changed.before });
  });
  return memberOrThrow(deps, app.id, orgId, userId);
}

/** DELETE .../members/{user_id}: oneself, or org:members:manage; the last owner stays. */
export async function removeMember(deps: OrgDeps, app: Application, actor: OrgActor, orgId: string, userId: string): Promise<void> {
  requireOrganizations(app);
  const self = actor.type === 'user' && actor.userId === userId;
  const permission = self ? 'org:read' : 'org:members:manage';
  await orgFor(deps, app.id, orgId, actor, permission);
  await inTransaction(deps.db, async (trx) => {
    // The permission and the owner rule, read under the organisation's lock: they hold at the write.
    const { member } = await lockedOrgFor(trx, app.id, orgId, actor, permission);
    if (!self && member) {
      const target = await members.findMember(trx, app.id, orgId, userId);
      if (!target) throw notFound('member not found');
      refuseOwnerChange(member.role, target.role);
    }
    const refused = await members.removeMember(trx, { appId: app.id, orgId, userId, now: iso(deps.clock.now()) });
    if (refused === 'not_member') throw notFound('member not found');
    if (refused === 'last_owner') throw lastOwner();
    await orgEvent(trx, deps, app, actor, 'organization.membership.deleted', userId, { organization_id: orgId });
  });
}

