import { iso } from '../../clock.js';
import { badRequest, forbidden } from '../../errors.js';
import { markTenantDeleted, type DeletionMark } from '../apps/deletion.js';
import { newTenantId } from '../../crypto/ids.js';
import type { Db } from '../../store/db.js';
import { insertMember } from '../../store/repos/tenant-members.js';
import * as tenants from '../../store/repos/tenants.js';
import { inTransaction } from '../../store/transaction.js';
import type { Clock } from '../../clock.js';
import type { EventContext } from '../events/types.js';
import { recordTenantEvent } from './events.js';
import { requireRight, type ConsoleCaller, type TenantRole } from './roles.js';

// Tenants through the Management API (docs/management.md): the caller's list, creation, rename, deletion.

export interface ManagementDeps {
  db: Db;
  clock: Clock;
}

export interface TenantOfCaller {
  tenant_id: string;
  name: string;
  role: TenantRole;
  created_at: string;
}

const PAGE_MAX = 200;

/**
 * The caller's tenants: a member's with its role, a token's own one, every tenant for the operator (paged
 * by id with `limit`/`cursor`, the role `owner`).
 */
export async function listTenantsOf(deps: ManagementDeps, caller: ConsoleCaller, page: { limit?: number; cursor?: string }): Promise<{ tenants: TenantOfCaller[]; next_cursor: string | null }> {
  const shown = (row: { id: string; name: string; created_at: string }, role: TenantRole) => ({ tenant_id: row.id, name: row.name, role, created_at: row.created_at });
  if (caller.operator) {
    const limit = Math.min(Math.max(page.limit ?? 50, 1), PAGE_MAX);
    const rows = await tenants.listTenantsPage(deps.db, limit + 1, page.cursor);
    const more = rows.length > limit;
    const kept = rows.slice(0, limit);
    return { tenants: kept.map((row) => shown(row, 'owner')), next_cursor: more ? kept[kept.length - 1]!.id : null };
  }
  if (caller.token) {
    const row = await tenants.findLiveTenant(deps.db, caller.token.tenantId);
    return { tenants: row ? [shown(row, caller.token.role)] : [], next_cursor: null };
  }
  const rows = caller.userId === undefined ? [] : await tenants.listTenantsOfMember(deps.db, caller.userId);
  return { tenants: rows.map((row) => shown(row, row.role)), next_cursor: null };
}

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw badRequest('name must be 1 to 200 characters');
  return trimmed;
}

/**
 * A new tenant: the operator's, or any console user's when CONSOLE_OPEN_SIGNUP is on. A console user who
 * creates it becomes its owner in the same transaction.
 */
export async function createTenantFor(deps: ManagementDeps, caller: ConsoleCaller, name: string, openSignup: boolean, context: EventContext): Promise<TenantOfCaller> {
  if (caller.token) throw forbidden('a tenant API token cannot create tenants');
  if (!caller.operator && !(openSignup && caller.userId)) throw forbidden('only the operator creates tenants here (CONSOLE_OPEN_SIGNUP is off)');
  const at = deps.clock.now();
  const row = { id: newTenantId(), name: checkedName(name), created_at: iso(at) };
  await inTransaction(deps.db, async (trx) => {
    await tenants.insertTenant(trx, row);
    await recordTenantEvent(trx, context, row.id, 'tenant.created', { name: row.name }, at);
    if (!caller.userId) return;
    await insertMember(trx, { tenant_id: row.id, user_id: caller.userId, role: 'owner', created_at: row.created_at });
    await recordTenantEvent(trx, context, row.id, 'tenant.member.created', { user_id: caller.userId, role: 'owner' }, at);
  });
  return { tenant_id: row.id, name: row.name, role: 'owner', created_at: row.created_at };
}

export async function showTenantTo(deps: ManagementDeps, caller: ConsoleCaller, tenantId: string): Promise<TenantOfCaller> {
  const { tenant, role } = await requireRight(deps.db, caller, tenantId, 'read');
  return { tenant_id: tenant.id, name: tenant.name, role, created_at: tenant.created_at };
}

export async function renameTenant(deps: ManagementDeps, caller: ConsoleCaller, tenantId: string, name: string, context: EventContext): Promise<TenantOfCaller> {
  const { tenant, role } = await requireRight(deps.db, caller, tenantId, 'write');
  const checked = checkedName(name);
  await inTransaction(deps.db, async (trx) => {
    await tenants.updateTenantName(trx, tenantId, checked);
    await recordTenantEvent(trx, context, tenantId, 'tenant.updated', { changed: ['name'] }, deps.clock.now());
  });
  return { tenant_id: tenant.id, name: checked, role, created_at: tenant.created_at };
}

/** Deletes the tenant as `gatehouse tenant delete` does (its apps marked at once, purged by the server's job); owners only. */
export async function deleteTenantOf(deps: ManagementDeps, caller: ConsoleCaller, tenantId: string, context: EventContext): Promise<DeletionMark> {
  await requireRight(deps.db, caller, tenantId, 'owner');
  return markTenantDeleted(deps, tenantId, context);
}
