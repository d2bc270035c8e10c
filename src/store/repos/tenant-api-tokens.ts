import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db.js';
import type { Database, TenantApiTokensTable, TenantRole } from '../types.js';
import { wroteOne } from './conditional-write.js';

// Tenant API tokens (docs/management.md): `tk_...`, kept as SHA-256. No cache anywhere: every request reads
// the row, so a revoke holds on every node at once.

export type ApiTokenRow = TenantApiTokensTable;

type TokensEb = ExpressionBuilder<Database, 'tenant_api_tokens'>;

/** Not revoked: a revoke is for good, and of racing revokes only one matches. */
const unrevoked = (eb: TokensEb) => eb('revoked_at', 'is', null);

/** A token that still authenticates at `now`: not revoked, and without an expiry or before it. */
const liveToken = (now: string) => (eb: TokensEb) => eb.and([unrevoked(eb), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])]);

/** Revokes the tenant's unrevoked tokens that the caller's conditions select; returns their ids. */
function revokeTenantTokens(db: Db, tenantId: string, now: string) {
  return db.updateTable('tenant_api_tokens').set({ revoked_at: now }).where('tenant_id', '=', tenantId).where(unrevoked).returning('id');
}

export async function insertApiToken(db: Db, row: ApiTokenRow): Promise<void> {
  await db.insertInto('tenant_api_tokens').values(row).execute();
}

/** The live token (not revoked, not expired) with this hash, or undefined. */
export async function findLiveApiToken(db: Db, tokenHash: string, now: string): Promise<ApiTokenRow | undefined> {
  return db.selectFrom('tenant_api_tokens').selectAll().where('token_hash', '=', tokenHash).where(liveToken(now)).executeTakeFirst();
}

/** The tenant's tokens not revoked, newest first. */
export async function listApiTokens(db: Db, tenantId: string): Promise<ApiTokenRow[]> {
  return db.selectFrom('tenant_api_tokens').selectAll().where('tenant_id', '=', tenantId).where(unrevoked).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** Revokes the token; false when it is unknown or revoked already. */
export async function revokeApiToken(db: Db, tenantId: string, tokenId: string, now: string): Promise<boolean> {
  return wroteOne(revokeTenantTokens(db, tenantId, now).where('id', '=', tokenId));
}

/** Whether the token is still unrevoked, read inside a change's transaction (services/management/roles.ts). */
export async function isApiTokenUnrevoked(db: Db, tenantId: string, tokenId: string): Promise<boolean> {
  const row = await db.selectFrom('tenant_api_tokens').select('id').where('tenant_id', '=', tenantId).where('id', '=', tokenId).where(unrevoked).executeTakeFirst();
  return row !== undefined;
}

/** Revokes the unrevoked tokens `createdBy` made in the tenant with one of `roles`; the ids revoked. */
export async function revokeApiTokensMadeBy(db: Db, tenantId: string, createdBy: string, roles: readonly TenantRole[], now: string): Promise<string[]> {
  if (!roles.length) return [];
  const rows = await revokeTenantTokens(db, tenantId, now).where('created_by', '=', createdBy).where('role', 'in', roles).execute();
  return rows.map((row) => row.id).sort();
}
