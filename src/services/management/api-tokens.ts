import { addSeconds, iso } from '../../clock.js';
import { randomBase62, sha256Hex } from '../../crypto/ids.js';
import { badRequest, forbidden } from '../../errors.js';
import * as tokens from '../../store/repos/tenant-api-tokens.js';
import { checkedRole } from './members.js';
import { creatorOf, requireRight, requireRightLocked, roleHas, type ConsoleCaller, type TenantRole } from './roles.js';
import type { ManagementDeps } from './tenants.js';
import type { EventContext } from '../events/types.js';
import { inTransaction } from '../../store/transaction.js';
import { recordTenantEvent, revokeWithEvent } from './events.js';

// Tenant API tokens for automation (docs/management.md): `tk_` + 48 base62 characters, shown once, kept as
// their SHA-256. Read on every request (services/credentials.ts): a revoke holds on every node at once.

export interface ApiTokenView {
  token_id: string;
  name: string;
  role: TenantRole;
  expires_at: string | null;
  created_at: string;
}

const view = (row: tokens.ApiTokenRow): ApiTokenView => ({ token_id: row.id, name: row.name, role: row.role, expires_at: row.expires_at, created_at: row.created_at });

/** A new token; an admin makes admin and viewer tokens, an owner any. It is recorded as made by creatorOf(caller). */
export async function createApiToken(deps: ManagementDeps, caller: ConsoleCaller, tenantId: string, input: { name: string; role: string; expiresInDays?: number }, context: EventContext): Promise<ApiTokenView & { token: string }> {
  const role = checkedRole(input.role);
  const refuseOwner = (callerRole: TenantRole) => {
    if (role === 'owner' && !roleHas(callerRole, 'owner')) throw forbidden('only an owner makes an owner token');
  };
  refuseOwner((await requireRight(deps.db, caller, tenantId, 'write')).role);
  const name = input.name.trim();
  if (!name || name.length > 200) throw badRequest('name must be 1 to 200 characters');
  const now = deps.clock.now();
  const token = `tk_${randomBase62(48)}`;
  const row: tokens.ApiTokenRow = {
    id: `tok_${randomBase62(20)}`,
    tenant_id: tenantId,
    name,
    role,
    token_hash: sha256Hex(token),
    created_at: iso(now),
    expires_at: input.expiresInDays === undefined ? null : iso(addSeconds(now, input.expiresInDays * 86_400)),
    revoked_at: null,
    created_by: creatorOf(caller),
  };
  await inTransaction(deps.db, async (trx) => {
    // The caller's role again under the tenant's lock: a maker removed or demoted meanwhile makes nothing
    // (and one removed after the commit takes this token with them: creator-grants.ts).
    refuseOwner(await requireRightLocked(trx, caller, tenantId, 'write'));
    await tokens.insertApiToken(trx, row);
    await recordTenantEvent(trx, context, tenantId, 'tenant.token.created', { token_id: row.id, name, role }, now);
  });
  return { ...view(row), token };
}

export async function listApiTokensOf(deps: ManagementDeps, caller: ConsoleCaller, tenantId: string): Promise<{ tokens: ApiTokenView[] }> {
  await requireRight(deps.db, caller, tenantId, 'read');
  return { tokens: (await tokens.listApiTokens(deps.db, tenantId)).map(view) };
}

export async function revokeApiTokenOf(deps: ManagementDeps, caller: ConsoleCaller, tenantId: string, tokenId: string, context: EventContext): Promise<void> {
  await requireRight(deps.db, caller, tenantId, 'write');
  const event = { type: 'tenant.token.revoked', data: { token_id: tokenId } };
  await revokeWithEvent(deps, context, tenantId, event, (trx, at) => tokens.revokeApiToken(trx, tenantId, tokenId, at), `token ${tokenId} not found`);
}
