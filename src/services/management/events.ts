import { iso, type Clock } from '../../clock.js';
import { notFound } from '../../errors.js';
import type { Db } from '../../store/db.js';
import { inTransaction } from '../../store/transaction.js';
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

/**
 * A revocation of something of the tenant's (a token, an invitation) and its tenant event, in one
 * transaction: `revoke` is the one conditional write, false when nothing live matched; then nothing is
 * recorded and the answer is 404 with `missing`.
 */
export async function revokeWithEvent(
  deps: { db: Db; clock: Clock },
  context: EventContext,
  tenantId: string,
  event: { type: string; data: Record<string, unknown> },
  revoke: (trx: Db, at: string) => Promise<boolean>,
  missing: string,
): Promise<void> {
  const at = deps.clock.now();
  const revoked = await inTransaction(deps.db, async (trx) => {
    if (!(await revoke(trx, iso(at)))) return false;
    await recordTenantEvent(trx, context, tenantId, event.type, event.data, at);
    return true;
  });
  if (!revoked) throw notFound(missing);
}
