import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db.js';
import type { Database, TenantInvitationsTable, TenantRole } from '../types.js';
import { wroteOne } from './conditional-write.js';

// Invitations to a tenant (docs/management.md), scoped by the tenant; the token is kept as its SHA-256.

export type InvitationRow = TenantInvitationsTable;

/** Still pending: neither accepted nor revoked (an invitation ends once, one way). */
const pendingInvitation = (eb: ExpressionBuilder<Database, 'tenant_invitations'>) => eb.and([eb('accepted_at', 'is', null), eb('revoked_at', 'is', null)]);

/** Revokes the tenant's pending invitations that the caller's conditions select; returns their ids. */
function revokePending(db: Db, tenantId: string, now: string) {
  return db.updateTable('tenant_invitations').set({ revoked_at: now }).where('tenant_id', '=', tenantId).where(pendingInvitation).returning('id');
}

export async function insertInvitation(db: Db, row: InvitationRow): Promise<void> {
  await db.insertInto('tenant_invitations').values(row).execute();
}

/** The tenant's invitations, newest first. */
export async function listInvitations(db: Db, tenantId: string): Promise<InvitationRow[]> {
  return db.selectFrom('tenant_invitations').selectAll().where('tenant_id', '=', tenantId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function findInvitation(db: Db, tenantId: string, invitationId: string): Promise<InvitationRow | undefined> {
  return db.selectFrom('tenant_invitations').selectAll().where('tenant_id', '=', tenantId).where('id', '=', invitationId).executeTakeFirst();
}

/** The invitation a token names (any state), or undefined. */
export async function findInvitationByTokenHash(db: Db, tokenHash: string): Promise<InvitationRow | undefined> {
  return db.selectFrom('tenant_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Revokes a pending invitation; false when it is unknown or no longer pending. */
export async function revokeInvitation(db: Db, tenantId: string, invitationId: string, now: string): Promise<boolean> {
  return wroteOne(revokePending(db, tenantId, now).where('id', '=', invitationId));
}

/**
 * Consumes the invitation in one conditional write: only a pending, unexpired one addressed to
 * `emailNormalized` is accepted, once. Undefined when nothing was consumed.
 */
export async function acceptInvitation(db: Db, tenantId: string, tokenHash: string, emailNormalized: string, userId: string, now: string): Promise<InvitationRow | undefined> {
  return db
    .updateTable('tenant_invitations')
    .set({ accepted_at: now, accepted_by: userId })
    .where('tenant_id', '=', tenantId)
    .where('token_hash', '=', tokenHash)
    .where('email_normalized', '=', emailNormalized)
    .where(pendingInvitation)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Revokes the pending invitations `createdBy` made in the tenant with one of `roles`; the ids revoked. */
export async function revokeInvitationsMadeBy(db: Db, tenantId: string, createdBy: string, roles: readonly TenantRole[], now: string): Promise<string[]> {
  if (!roles.length) return [];
  const rows = await revokePending(db, tenantId, now).where('created_by', '=', createdBy).where('role', 'in', roles).execute();
  return rows.map((row) => row.id).sort();
}
