import type { Db } from '../../store/db.js';
import { recordEvent } from '../events/record.js';
import { eventOf, type EventContext } from '../events/types.js';

// The events of management actions (docs/events.md, docs/management.md), each written in the transaction of
// its change: the tenant's own ones with app_id null (they outlive the app they name), an app's with its id.

/** A tenant-level event (members, invitations, tokens, app.created, app.deleted, tenant.*). */
export function recordTenantEvent(trx: Db, context: EventContext, tenantId: string, type: string, data: Record<string, unknown>, now: Date): Promise<string> {
  return recordEvent(trx, eventOf(context, { type, tenantId, appId: null, userId: null, data }), now);
}

/** An app's own management event (app.updated, app.secret_key_rotated, app.signing_key_rotated). */
export function recordAppEvent(trx: Db, context: EventContext, app: { id: string; tenantId: string }, type: string, data: Record<string, unknown>, now: Date): Promise<string> {
  return recordEvent(trx, eventOf(context, { type, tenantId: app.tenantId, appId: app.id, userId: null, data }), now);
}
