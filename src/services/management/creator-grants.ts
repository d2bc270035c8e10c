import type { Db } from '../../store/db.js';
import { revokeApiTokensMadeBy } from '../../store/repos/tenant-api-tokens.js';
import { listTenantsWithGrantsMadeBy } from '../../store/repos/tenant-grants.js';
import { revokeInvitationsMadeBy } from '../../store/repos/tenant-invitations.js';
import { findMemberRole } from '../../store/repos/tenant-members.js';
import { lockTenant } from '../../store/repos/tenants.js';
import type { EventContext } from '../events/types.js';
import { recordTenantEvent } from './events.js';
import { rolesAbove, TENANT_ROLES, type TenantRole } from './roles.js';

// What a member made does not outlive their right to make it (docs/management.md): the tenant API tokens
// and pending invitations recorded as made by them (`created_by`) are revoked in the transaction that
// removes them, or that demotes them below the token's or invitation's role (a grant never outranks its
// maker). Each revocation writes its event, in the same transaction.

/**
 * Revokes what `userId` made in the tenant that `role` (their role from now on; undefined: removed) may not
 * make; inside the removal's or the demotion's transaction, after lockTenant.
 */
export async function revokeGrantsBeyond(trx: Db, context: EventContext, tenantId: string, userId: string, role: TenantRole | undefined, at: Date): Promise<void> {
  const roles = role === undefined ? TENANT_ROLES : rolesAbove(role);
  const reason = role === undefined ? 'creator_removed' : 'creator_demoted';
  for (const tokenId of await revokeApiTokensMadeBy(trx, tenantId, userId, roles, at.toISOString())) {
    await recordTenantEvent(trx, context, tenantId, 'tenant.token.revoked', { token_id: tokenId, reason }, at);
  }
  for (const invitationId of await revokeInvitationsMadeBy(trx, tenantId, userId, roles, at.toISOString())) {
    await recordTenantEvent(trx, context, tenantId, 'tenant.invitation.revoked', { invitation_id: invitationId, reason }, at);
  }
}

/**
 * When a console user stops being an operator, or is deleted: in every tenant where they made a live token
 * or a pending invitation, what their role there now may not make (everything, where they are no member,
 * or no longer exist) is revoked. Operators make grants in tenants they are no member of, so removing the
 * role reaches further than a membership's removal. Each tenant is locked first, as every management change
 * locks it, so a grant being made there at the same time either commits before and is revoked here, or
 * reads the maker's role after this commit and is refused.
 */
export async function revokeGrantsOfCreator(trx: Db, context: EventContext, userId: string, at: Date): Promise<void> {
  for (const tenantId of await listTenantsWithGrantsMadeBy(trx, userId)) {
    await lockTenant(trx, tenantId);
    await revokeGrantsBeyond(trx, context, tenantId, userId, await findMemberRole(trx, tenantId, userId), at);
  }
}
