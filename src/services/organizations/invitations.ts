import { addSeconds, iso } from '../../clock.js';
import { newOpaqueToken, newUuid, sha256Hex } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { ApiError, badRequest, forbidden, notFound } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import * as invitations from '../../store/repos/organization-invitations.js';
import * as members from '../../store/repos/organization-members.js';
import { findUserById, normalizeEmail } from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import { allowedOriginsOf, checkRedirect } from '../apps/origins.js';
import { queueEmail } from '../mail/compose.js';
import { checkedRole } from './members.js';
import { limits, lockedOrgFor, membershipRefused, orgEvent, orgFor, requireOrganizations, type OrgActor } from './organizations.js';
import { decodeListCursor, invitationView, memberView, paged } from './views.js';

// Invitations (docs/organizations.md): sent by org:invitations:manage (an admin cannot invite an owner),
// emailed through the outbox in the transaction that writes them, 20 an hour (org_invitation_org) and 100
// pending per organisation; accepted once, by the session of a user whose verified email is the invited one.

export type InvitationDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'masterKey' | 'limiter' | 'mailSignal'>;

export const INVITATION_DAYS = 7;
export const MAX_PENDING_INVITATIONS = 100;

const tooMany = (detail: string, seconds: number) => new ApiError(429, 'rate_limited', detail, { headers: { 'retry-after': String(seconds) } });

/** The page the emailed link opens: redirect_url when allow-listed (400 otherwise), else the app's first origin. */
function invitationLink(app: Application, redirectUrl: string | undefined, token: string): string {
  const base = redirectUrl !== undefined ? checkRedirect(app, redirectUrl) : allowedOriginsOf(app)[0];
  if (base === undefined) throw badRequest('the application has no allowed origin for the invitation link: send redirect_url, or add one (--allowed-origin)', 'invalid_redirect');
  const url = new URL(base);
  url.searchParams.set('invitation_token', token);
  return url.toString();
}

export async function createInvitation(
  deps: InvitationDeps,
  app: Application,
  actor: OrgActor,
  orgId: string,
  input: { email: string; role: string; redirectUrl?: string },
) {
  requireOrganizations(app);
  const { org, member } = await orgFor(deps, app.id, orgId, actor, 'org:invitations:manage');
  const role = await checkedRole(deps, app.id, input.role);
  if (member && member.role !== 'owner' && role === 'owner') throw forbidden('only an owner may invite an owner');
  const email = input.email.trim();
  const token = newOpaqueToken('orginv_');
  const link = invitationLink(app, input.redirectUrl, token);
  await deps.limiter.consume('org_invitation_org', `${app.id}:${orgId}`);
  const now = deps.clock.now();
  const row = {
    id: newUuid(),
    app_id: app.id,
    organization_id: orgId,
    email,
    email_normalized: normalizeEmail(email),
    role,
    token_hash: sha256Hex(token),
    status: 'pending' as const,
    inviter_user_id: actor.type === 'user' ? actor.userId : null,
    expires_at: iso(addSeconds(now, INVITATION_DAYS * 86_400)),
    created_at: iso(now),
    updated_at: iso(now),
  };
  await inTransaction(deps.db, async (trx) => {
    // The permission and the owner rule again, under the organisation's lock: they hold at the insert.
    const locked = await lockedOrgFor(trx, app.id, orgId, actor, 'org:invitations:manage');
    if (locked.member && locked.member.role !== 'owner' && role === 'owner') throw forbidden('only an owner may invite an owner');
    const inserted = await invitations.insertInvitation(trx, row, MAX_PENDING_INVITATIONS);
    if (inserted === 'no_organization') throw notFound('organization not found');
    if (inserted === 'full') throw tooMany(`an organization has at most ${MAX_PENDING_INVITATIONS} pending invitations: revoke some, or wait for them to be accepted or expire`, 3600);
    await orgEvent(trx, deps, app, actor, 'organization.invitation.created', null, { organization_id: orgId, invitation_id: row.id, role });
    // In the app's words when it wrote its own (docs/email.md); the invitee has no locale here yet: English.
    await queueEmail({ ...deps, db: trx }, app, 'organization_invitation', {
      to: email,
      values: { link, role, organization_name: org.name },
      durations: { link_valid_for: INVITATION_DAYS * 86_400 },
    });
  });
  deps.mailSignal.wake();
  return invitationView(row, row.created_at);
}

export async function listInvitations(deps: InvitationDeps, app: Application, actor: OrgActor, orgId: string, options: { status?: string; limit: number; cursor?: string }) {
  requireOrganizations(app);
  await orgFor(deps, app.id, orgId, actor, 'org:invitations:manage');
  const rows = await invitations.pageInvitations(deps.db, app.id, orgId, { status: options.status, afterId: decodeListCursor(options.cursor), limit: options.limit + 1 });
  const { page, next_cursor } = paged(rows, options.limit, (row) => row.id);
  const now = iso(deps.clock.now());
  return { invitations: page.map((row) => invitationView(row, now)), next_cursor };
}

export async function getInvitation(deps: InvitationDeps, app: Application, actor: OrgActor, orgId: string, invitationId: string) {
  requireOrganizations(app);
  await orgFor(deps, app.id, orgId, actor, 'org:invitations:manage');
  const row = await invitations.findInvitation(deps.db, app.id, orgId, invitationId);
  if (!row) throw notFound('invitation not found');
  return invitationView(row, iso(deps.clock.now()));
}

/** DELETE .../invitations/{id}: a pending invitation is revoked (its link stops working); any other is 404. */
export async function revokeInvitation(deps: InvitationDeps, app: Application, actor: OrgActor, orgId: string, invitationId: string): Promise<void> {
  requireOrganizations(app);
  await orgFor(deps, app.id, orgId, actor, 'org:invitations:manage');
  await inTransaction(deps.db, async (trx) => {
    await lockedOrgFor(trx, app.id, orgId, actor, 'org:invitations:manage');
    if (!(await invitations.revokeInvitation(trx, app.id, orgId, invitationId, iso(deps.clock.now())))) throw notFound('no pending invitation with this id');
    await orgEvent(trx, deps, app, actor, 'organization.invitation.revoked', null, { organization_id: orgId, invitation_id: invitationId });
  });
}

/** The signed-in user's verified address, normalized, or undefined (unverified, or none). */
async function verifiedEmail(deps: InvitationDeps, appId: string, userId: string): Promise<string | undefined> {
  const user = await findUserById(deps.db, appId, userId);
  return user?.email && user.emailVerified ? normalizeEmail(user.email) : undefined;
}

/** GET /v1/me/invitations: the pending invitations to the user's verified email. */
export async function myInvitations(deps: InvitationDeps, app: Application, userId: string) {
  requireOrganizations(app);
  const email = await verifiedEmail(deps, app.id, userId);
  const now = iso(deps.clock.now());
  const rows = email === undefined ? [] : await invitations.findPendingForEmail(deps.db, app.id, email, now);
  return {
    invitations: rows.map((row) => ({ ...invitationView(row, now), organization_name: row.organization_name, organization_slug: row.organization_slug })),
  };
}

/**
 * POST /v1/invitations/accept {token} or {invitation_id}: the invitation is claimed by one conditional write
 * that only a pending, unexpired one to the session's verified address passes, and the membership is added in
 * the same transaction (a cap refusal leaves the invitation pending).
 */
export async function acceptInvitation(deps: InvitationDeps, app: Application, userId: string, input: { token?: string; invitationId?: string }, actor: OrgActor = { type: 'user', userId, sessionId: '' }) {
  requireOrganizations(app);
  if ((input.token === undefined) === (input.invitationId === undefined)) throw badRequest('send token or invitation_id');
  const by = input.token !== undefined ? { tokenHash: sha256Hex(input.token) } : { invitationId: input.invitationId! };
  const email = await verifiedEmail(deps, app.id, userId);
  const now = iso(deps.clock.now());
  const accepted = email === undefined ? undefined : await inTransaction(deps.db, async (trx) => {
    const claimed = await invitations.claimInvitation(trx, { appId: app.id, by, emailNormalized: email, now });
    if (!claimed) return undefined;
    const refused = await members.addMember(trx, limits(deps, { appId: app.id, orgId: claimed.organization_id, userId, role: claimed.role, now }));
    if (refused) throw membershipRefused(refused);
    const about = { organization_id: claimed.organization_id, invitation_id: claimed.id, role: claimed.role };
    await orgEvent(trx, deps, app, actor, 'organization.invitation.accepted', userId, about);
    await orgEvent(trx, deps, app, actor, 'organization.membership.created', userId, { organization_id: claimed.organization_id, role: claimed.role });
    return claimed;
  });
  if (!accepted) {
    const found = await invitations.findInvitationBy(deps.db, app.id, by);
    if (!found) {
      if ('invitationId' in by) throw notFound('invitation not found');
      throw badRequest('this invitation link is not valid', 'invalid_invitation');
    }
    if (found.status === 'pending' && found.expires_at > now) throw forbidden('this invitation is for another email address, or yours is not verified yet', 'invitation_email_mismatch');
    throw badRequest(`this invitation was ${found.status === 'pending' ? 'expired' : found.status}`, 'invalid_invitation');
  }
  const member = await members.findMember(deps.db, app.id, accepted.organization_id, userId);
  return memberView(member!);
}
