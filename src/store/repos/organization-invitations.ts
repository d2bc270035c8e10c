import { sql, type ExpressionBuilder } from 'kysely';
import { rowLimit } from '../limit.js';
import type { Db } from '../db.js';
import type { Database, OrganizationInvitationRow } from '../types.js';
import { writeLiveOrganization } from './organizations.js';

// Invitations to an organisation (docs/organizations.md): the emailed token kept as its SHA-256; an
// invitation is accepted or revoked by one conditional write that only a pending, unexpired one passes.

/** An invitation still open at `now`: pending (not accepted or revoked) and unexpired. */
const openInvitation = (eb: ExpressionBuilder<Database, 'organization_invitations'>, now: string) =>
  eb.and([eb('organization_invitations.status', '=', 'pending'), eb('organization_invitations.expires_at', '>', now)]);

/**
 * Inserts the invitation while the organisation is live and has fewer than `maxPending` pending, unexpired
 * invitations. The organisation's row is written first (its lock on PostgreSQL; SQLite serialises writers),
 * so two invitations at once count each other. Call inside a transaction; false when refused.
 */
export async function insertInvitation(trx: Db, row: OrganizationInvitationRow, maxPending: number): Promise<'inserted' | 'full' | 'no_organization'> {
  const locked = await writeLiveOrganization(trx, row.app_id, row.organization_id).returning('id').executeTakeFirst();
  if (!locked) return 'no_organization';
  const r = row;
  const { rows } = await sql<{ id: string }>`insert into organization_invitations
      (id, app_id, organization_id, email, email_normalized, role, token_hash, status, inviter_user_id, expires_at, created_at, updated_at)
    select ${r.id}, ${r.app_id}, ${r.organization_id}, ${r.email}, ${r.email_normalized}, ${r.role}, ${r.token_hash}, ${r.status}, ${r.inviter_user_id}, ${r.expires_at}, ${r.created_at}, ${r.updated_at}
    where (select count(*) from organization_invitations where organization_id = ${r.organization_id} and status = 'pending' and expires_at > ${r.created_at}) < ${maxPending}
    returning id`.execute(trx);
  const inserted = rows[0];
  return inserted ? 'inserted' : 'full';
}

export async function findInvitation(db: Db, appId: string, orgId: string, invitationId: string): Promise<OrganizationInvitationRow | undefined> {
  return db.selectFrom('organization_invitations').selectAll().where('id', '=', invitationId).where('organization_id', '=', orgId).where('app_id', '=', appId).executeTakeFirst();
}

/** A page of the organisation's invitations (one status, or all) in id order after `afterId`. */
export async function pageInvitations(db: Db, appId: string, orgId: string, options: { status?: string; afterId: string | null; limit: number }): Promise<OrganizationInvitationRow[]> {
  let query = db.selectFrom('organization_invitations').selectAll().where('organization_id', '=', orgId).where('app_id', '=', appId);
  if (options.status !== undefined) query = query.where('status', '=', options.status as 'pending');
  if (options.afterId !== null) query = query.where('id', '>', options.afterId);
  return query.orderBy('id').limit(rowLimit(options.limit)).execute();
}

/** The pending, unexpired invitations to a (normalized) email, in the app's live organisations. */
export async function findPendingForEmail(db: Db, appId: string, emailNormalized: string, now: string): Promise<(OrganizationInvitationRow & { organization_name: string; organization_slug: string })[]> {
  return db
    .selectFrom('organization_invitations')
    .innerJoin('organizations', 'organizations.id', 'organization_invitations.organization_id')
    .selectAll('organization_invitations')
    .select(['organizations.name as organization_name', 'organizations.slug as organization_slug'])
    .where('organization_invitations.app_id', '=', appId)
    .where('organization_invitations.email_normalized', '=', emailNormalized)
    .where((eb) => openInvitation(eb, now))
    .where('organizations.deleted_at', 'is', null)
    .orderBy('organization_invitations.id')
    .limit(rowLimit(100))
    .execute();
}

/** Revokes a pending invitation; undefined when it is not pending (or not the organisation's). */
export async function revokeInvitation(db: Db, appId: string, orgId: string, invitationId: string, now: string): Promise<OrganizationInvitationRow | undefined> {
  return db
    .updateTable('organization_invitations')
    .set({ status: 'revoked', updated_at: now })
    .where('id', '=', invitationId)
    .where('organization_id', '=', orgId)
    .where('app_id', '=', appId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/**
 * Accepts an invitation by its token's hash or its id, addressed to `emailNormalized`: one conditional write
 * that only a pending, unexpired invitation to that address passes (twenty accepts at once: one wins).
 */
export async function claimInvitation(
  trx: Db,
  v: { appId: string; by: { tokenHash: string } | { invitationId: string }; emailNormalized: string; now: string },
): Promise<OrganizationInvitationRow | undefined> {
  let query = trx
    .updateTable('organization_invitations')
    .set({ status: 'accepted', updated_at: v.now })
    .where('app_id', '=', v.appId)
    .where((eb) => openInvitation(eb, v.now))
    .where('email_normalized', '=', v.emailNormalized);
  query = 'tokenHash' in v.by ? query.where('token_hash', '=', v.by.tokenHash) : query.where('id', '=', v.by.invitationId);
  return query.returningAll().executeTakeFirst();
}

/** The invitation a refused accept named (to tell used, revoked or expired from another address's), by token hash or id. */
export async function findInvitationBy(db: Db, appId: string, by: { tokenHash: string } | { invitationId: string }): Promise<OrganizationInvitationRow | undefined> {
  const query = db.selectFrom('organization_invitations').selectAll().where('app_id', '=', appId);
  return ('tokenHash' in by ? query.where('token_hash', '=', by.tokenHash) : query.where('id', '=', by.invitationId)).executeTakeFirst();
}

/** Purge: up to `limit` invitations of a deleted organisation; answers how many went. */
export async function purgeInvitationBatch(db: Db, appId: string, orgId: string, limit: number): Promise<number> {
  const batch = await db.selectFrom('organization_invitations').select('id').where('organization_id', '=', orgId).where('app_id', '=', appId).limit(rowLimit(limit)).execute();
  if (batch.length === 0) return 0;
  await db.deleteFrom('organization_invitations').where('id', 'in', batch.map((b) => b.id)).execute();
  return batch.length;
}

/** A user's deletion: the invitations to their address (pending or not) go with them. */
export async function deleteInvitationsToEmail(db: Db, appId: string, emailNormalized: string): Promise<void> {
  await db.deleteFrom('organization_invitations').where('app_id', '=', appId).where('email_normalized', '=', emailNormalized).execute();
}
