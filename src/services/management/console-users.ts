import type { Db } from '../../store/db.js';
import { findApplication } from '../../store/repos/applications.js';
import * as consoleRepo from '../../store/repos/console.js';
import { findSetting } from '../../store/repos/settings.js';
import { deleteMembershipsOfUser } from '../../store/repos/tenant-members.js';
import { listTenantsOfMember, lockTenant } from '../../store/repos/tenants.js';
import { revokeGrantsBeyond, revokeGrantsOfCreator } from './creator-grants.js';
import { recordEvent } from '../events/record.js';
import { eventOf, SYSTEM_CONTEXT, type EventContext } from '../events/types.js';
import { recordTenantEvent } from './events.js';

// The console app's users as the Management API sees them (docs/management.md): who is an operator, and what
// goes with a console user when the user is deleted. Each change writes its event in the caller's transaction.

export const CONSOLE_APP_SETTING = 'console_app_id';

/** The console app's id, or undefined on a database `migrate` has not prepared yet. */
export const findConsoleAppId = (db: Db): Promise<string | undefined> => findSetting(db, CONSOLE_APP_SETTING);

/**
 * The console app's WebAuthn relying party (docs/console.md, "Passkeys"), or undefined for any other app:
 * the console is served at PUBLIC_BASE_URL/console/, so the id is that URL's host and the one origin a
 * ceremony may come from is its origin. Derived from the configuration at each call, not stored as the
 * app's domain or allowed origin: PUBLIC_BASE_URL may change between runs (a new host name, a port) and a
 * stored copy would silently refuse every passkey until someone edited the app; and an allowed origin
 * would also widen the console app's CORS, redirect and cookie allow-lists, which the console (same
 * origin, Bearer tokens) does not need. A passkey made under one host does not sign in under another:
 * WebAuthn binds it to the id.
 */
export async function consoleRelyingParty(deps: { db: Db; config: { publicBaseUrl: string } }, appId: string): Promise<{ id: string; origins: string[] } | undefined> {
  if (appId !== (await findConsoleAppId(deps.db))) return undefined;
  const base = new URL(deps.config.publicBaseUrl);
  return { id: base.hostname, origins: [base.origin] };
}

/**
 * `operator.added` / `operator.removed`: an event of the console app (in the system tenant) about its user,
 * read by the operator in the console app's log (`GET /v1/events` with `X-App-Id`).
 */
export async function recordOperatorEvent(trx: Db, context: EventContext, type: 'operator.added' | 'operator.removed', userId: string, at: Date, data: Record<string, unknown> = {}): Promise<void> {
  const appId = await findConsoleAppId(trx);
  const app = appId === undefined ? undefined : await findApplication(trx, appId);
  if (!app) return;
  await recordEvent(trx, eventOf(context, { type, tenantId: app.tenantId, appId: app.id, userId, data }), at);
}

/** Makes the console user an operator, with its event; false when they were one already (nothing written). */
export async function grantOperator(trx: Db, context: EventContext, userId: string, at: Date, data: Record<string, unknown> = {}): Promise<boolean> {
  if (!(await consoleRepo.insertOperator(trx, userId, at.toISOString()))) return false;
  // The links serve printed while there was no operator (stderr, perhaps kept by a collector) end with the first.
  await consoleRepo.deleteUnusedSetupTokens(trx);
  await recordOperatorEvent(trx, context, 'operator.added', userId, at, data);
  return true;
}

/**
 * Ends the console user's operator role, with its event, and the tokens and invitations they made as operator
 * beyond what their memberships allow (creator-grants.ts); false when they were not one.
 */
export async function revokeOperator(trx: Db, context: EventContext, userId: string, at: Date, data: Record<string, unknown> = {}): Promise<boolean> {
  if (!(await consoleRepo.deleteOperator(trx, userId))) return false;
  await recordOperatorEvent(trx, context, 'operator.removed', userId, at, data);
  await revokeGrantsOfCreator(trx, context, userId, at);
  return true;
}

/**
 * In the transaction that deletes a user of `appId`: when it is the console app, the user's tenant
 * memberships (each a `tenant.member.deleted` event, `data.reason` `user_deleted`), the tokens and pending
 * invitations they made (each revoked with its event, `reason` `creator_removed`) and operator role go too.
 * The tenants are locked first (in id order), as a removal by the Management API locks its tenant.
 */
export async function deleteConsoleUserRows(trx: Db, appId: string, userId: string, at: Date): Promise<void> {
  if (appId !== (await findConsoleAppId(trx))) return;
  const tenantIds = [...new Set((await listTenantsOfMember(trx, userId)).map((tenant) => tenant.id))].sort();
  for (const tenantId of tenantIds) await lockTenant(trx, tenantId);
  for (const membership of await deleteMembershipsOfUser(trx, userId)) {
    await recordTenantEvent(trx, SYSTEM_CONTEXT, membership.tenant_id, 'tenant.member.deleted', { user_id: userId, role: membership.role, reason: 'user_deleted' }, at);
  }
  for (const tenantId of tenantIds) await revokeGrantsBeyond(trx, SYSTEM_CONTEXT, tenantId, userId, undefined, at);
  await revokeOperator(trx, SYSTEM_CONTEXT, userId, at, { reason: 'user_deleted' });
  // Grants made in tenants they were no member of (as operator, or before a removal that predates 0045).
  await revokeGrantsOfCreator(trx, SYSTEM_CONTEXT, userId, at);
}
