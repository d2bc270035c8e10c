import type { Db } from '../db.js';

// What a console user made that still grants access to a tenant: tenant API tokens not yet revoked and
// invitations still pending (services/management/creator-grants.ts revokes them when the maker goes).

/** The ids of the tenants where `createdBy` made a live token or a pending invitation, in id order. */
export async function listTenantsWithGrantsMadeBy(db: Db, createdBy: string): Promise<string[]> {
  const rows = await db
    .selectFrom('tenant_api_tokens')
    .select('tenant_id')
    .where('created_by', '=', createdBy)
    .where('revoked_at', 'is', null)
    .union(
      db.selectFrom('tenant_invitations').select('tenant_id').where('created_by', '=', createdBy).where('accepted_at', 'is', null).where('revoked_at', 'is', null),
    )
    .execute();
  return [...new Set(rows.map((row) => row.tenant_id))].sort();
}
