import { addSeconds, iso } from '../../clock.js';
import { newUuid, randomBase62, sha256Hex } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import type { Mail } from '../../mail/mailer.js';
import * as invitations from '../../store/repos/tenant-invitations.js';
import { findMember, insertMember } from '../../store/repos/tenant-members.js';
import { findLiveTenant } from '../../store/repos/tenants.js';
import { findUserById, normalizeEmail } from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import { enqueueMail } from '../mail/outbox.js';
import { findConsoleAppId } from './console-app.js';
import { checkedRole } from './members.js';
import type { EventContext } from '../events/types.js';
import { recordTenantEvent, revokeWithEvent } from './events.js';
import { creatorOf, requireRight, requireRightLocked, roleHas, type ConsoleCaller, type TenantRole } from './roles.js';

// Invitations to a tenant (docs/management.md): emailed with a link to the console's accept page, accepted
// once by a console session whose verified email is the invited one. Only the token's hash is kept.

export type InvitationDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'masterKey' | 'mailSignal'>;

const INVITATION_SECONDS = 7 * 86_400;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

export interface InvitationView {
  invitation_id: string;
  tenant_id: string;
  email: string;
  role: TenantRole;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  expires_at: string;
  created_at: string;
}

function view(row: invitations.InvitationRow, now: string): InvitationView {
  const status = row.accepted_at ? 'accepted' : row.revoked_at ? 'revoked' : row.expires_at <= now ? 'expired' : 'pending';
  return { invitation_id: row.id, tenant_id: row.tenant_id, email: row.email, role: row.role, status, expires_at: row.expires_at, created_at: row.created_at };
}

function invitationMail(to: string, tenantName: string, role: TenantRole, link: string): Mail {
  const subject = `You are invited to ${tenantName} on Gatehouse`;
  const text = `You are invited to join ${tenantName} as ${role}.\n\nOpen this link to accept (it works once, for 7 days):\n${link}\n\nSign in to the console with this address first. If you did not expect this, ignore this email.\n`;
  const html = `<p>You are invited to join <b>${escapeHtml(tenantName)}</b> as ${role}.</p><p><a href="${escapeHtml(link)}">Accept the invitation</a> (it works once, for 7 days).</p><p>If you did not expect this, ignore this email.</p>`;
  return { to, subject, text, html };
}

/**
 * Invites `email` to the tenant: the row and its email in one transaction. An admin invites admins and
 * viewers; only an owner invites an owner. The operator (`gatehouse tenant create --owner-email`) any role.
 */
export async function invite(deps: InvitationDeps, caller: ConsoleCaller, tenantId: string, email: string, role: string, context: EventContext): Promise<InvitationView & { invitation_url: string }> {
  const granted = checkedRole(role);
  const refuseOwner = (callerRole: TenantRole) => {
    if (granted === 'owner' && !roleHas(callerRole, 'owner')) throw forbidden('only an owner invites an owner');
  };
  const { tenant, role: callerRole } = await requireRight(deps.db, caller, tenantId, 'write');
  refuseOwner(callerRole);
  const address = email.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(address) || address.length > 254) throw badRequest('email must be an email address');
  const consoleAppId = await findConsoleAppId(deps.db);
  if (!consoleAppId) throw notFound('the console app is not made yet: run gatehouse migrate');
  const token = `inv_${randomBase62(43)}`;
  const now = deps.clock.now();
  const row: invitations.InvitationRow = {
    id: `tinv_${randomBase62(20)}`,
    tenant_id: tenantId,
    email: address,
    email_normalized: normalizeEmail(address),
    role: granted,
    token_hash: sha256Hex(token),
    created_at: iso(now),
    expires_at: iso(addSeconds(now, INVITATION_SECONDS)),
    accepted_at: null,
    accepted_by: null,
    revoked_at: null,
    created_by: creatorOf(caller),
  };
  const link = `${deps.config.publicBaseUrl.replace(/\/$/, '')}/console/accept?token=${token}`;
  await inTransaction(deps.db, async (trx) => {
    refuseOwner(await requireRightLocked(trx, caller, tenantId, 'write'));
    await invitations.insertInvitation(trx, row);
    await recordTenantEvent(trx, context, tenantId, 'tenant.invitation.created', { invitation_id: row.id, email: address, role: granted }, now);
    await enqueueMail({ ...deps, db: trx }, consoleAppId, invitationMail(address, tenant.name, granted, link));
  });
  deps.mailSignal.wake();
  return { ...view(row, iso(now)), invitation_url: link };
}

export async function listInvitationsOf(deps: InvitationDeps, caller: ConsoleCaller, tenantId: string): Promise<{ invitations: InvitationView[] }> {
  await requireRight(deps.db, caller, tenantId, 'read');
  const now = iso(deps.clock.now());
  return { invitations: (await invitations.listInvitations(deps.db, tenantId)).map((row) => view(row, now)) };
}

export async function showInvitation(deps: InvitationDeps, caller: ConsoleCaller, tenantId: string, invitationId: string): Promise<InvitationView> {
  await requireRight(deps.db, caller, tenantId, 'read');
  const row = await invitations.findInvitation(deps.db, tenantId, invitationId);
  if (!row) throw notFound(`invitation ${invitationId} not found`);
  return view(row, iso(deps.clock.now()));
}

/** Revokes a pending invitation; 404 when unknown or no longer pending. */
export async function revokeInvitationOf(deps: InvitationDeps, caller: ConsoleCaller, tenantId: string, invitationId: string, context: EventContext): Promise<void> {
  await requireRight(deps.db, caller, tenantId, 'write');
  const event = { type: 'tenant.invitation.revoked', data: { invitation_id: invitationId } };
  await revokeWithEvent(deps, context, tenantId, event, (trx, at) => invitations.revokeInvitation(trx, tenantId, invitationId, at), `pending invitation ${invitationId} not found`);
}

/**
 * Accepts an invitation for the signed-in console user: their verified email must be the invited one
 * (else 403); the invitation is consumed and the membership made in one transaction, the consumption one
 * conditional write (used, revoked or expired → 400).
 */
export async function acceptInvitation(deps: InvitationDeps, caller: ConsoleCaller, token: string, context: EventContext) {
  if (caller.userId === undefined) throw forbidden('an invitation is accepted with a console session of the invited address');
  const tokenHash = sha256Hex(token);
  const found = await invitations.findInvitationByTokenHash(deps.db, tokenHash);
  if (!found || !(await findLiveTenant(deps.db, found.tenant_id))) throw badRequest('this invitation is unknown', 'invalid_token');
  const consoleAppId = (await findConsoleAppId(deps.db)) ?? '';
  const user = await findUserById(deps.db, consoleAppId, caller.userId);
  if (!user?.email || !user.emailVerified || normalizeEmail(user.email) !== found.email_normalized) {
    throw forbidden('this invitation is for another address: sign in to the console with the invited, verified email');
  }
  const at = deps.clock.now();
  const now = iso(at);
  const userId = caller.userId;
  return inTransaction(deps.db, async (trx) => {
    const accepted = await invitations.acceptInvitation(trx, found.tenant_id, tokenHash, found.email_normalized, userId, now);
    if (!accepted) throw badRequest('this invitation was used, revoked or has expired', 'invalid_token');
    await recordTenantEvent(trx, context, accepted.tenant_id, 'tenant.invitation.accepted', { invitation_id: accepted.id, user_id: userId }, at);
    if (await insertMember(trx, { tenant_id: accepted.tenant_id, user_id: userId, role: accepted.role, created_at: now })) {
      await recordTenantEvent(trx, context, accepted.tenant_id, 'tenant.member.created', { user_id: userId, role: accepted.role }, at);
    }
    const member = (await findMember(trx, accepted.tenant_id, userId, consoleAppId))!;
    return { tenant_id: member.tenant_id, user_id: member.user_id, email: member.email, role: member.role, created_at: member.created_at };
  });
}
