import { iso } from '../../clock.js';
import type { Db } from '../../store/db.js';
import * as sessions from '../../store/repos/sessions.js';
import { recordEvent } from '../events/record.js';
import { eventOf, SYSTEM_CONTEXT, type EventContext } from '../events/types.js';
import { findApplication } from '../../store/repos/applications.js';
import { inTransaction } from '../../store/transaction.js';

// Ending sessions with their session.revoked events (docs/events.md), one per session that was live, in the
// transaction of the revocation.

/** Why a session ended (session.revoked's `data.reason`). */
export type RevokeReason = 'logout' | 'revoked' | 'reuse_detected' | 'password_changed' | 'user_deleted' | 'others_revoked' | 'claimed' | 'mfa_enrolled' | 'banned';

export interface Revocation {
  app: { id: string; tenantId: string };
  reason: RevokeReason;
  context: EventContext;
  now: Date;
}

/** Records session.revoked for each of the user's sessions `sessionIds` ended in `trx`. */
export async function recordRevoked(trx: Db, userId: string, sessionIds: readonly string[], r: Revocation): Promise<void> {
  for (const sessionId of sessionIds) {
    await recordEvent(trx, eventOf(r.context, { type: 'session.revoked', tenantId: r.app.tenantId, appId: r.app.id, userId, data: { session_id: sessionId, reason: r.reason } }), r.now);
  }
}

/** Revokes every live session of the user in `trx`, each with its event; answers how many. */
export async function revokeUserSessions(trx: Db, userId: string, r: Revocation): Promise<number> {
  const ids = await sessions.revokeUserSessions(trx, r.app.id, userId, iso(r.now));
  await recordRevoked(trx, userId, ids, r);
  return ids.length;
}

/** Revokes every live session of the user but `keepSessionId` in `trx`, each with its event; answers how many. */
export async function revokeOtherUserSessions(trx: Db, userId: string, keepSessionId: string, r: Revocation): Promise<number> {
  const ids = await sessions.revokeOtherUserSessions(trx, r.app.id, userId, keepSessionId, iso(r.now));
  await recordRevoked(trx, userId, ids, r);
  return ids.length;
}

/** Revokes one live session of the app in `trx` with its event; false when it was not live. */
export async function revokeOneSession(trx: Db, sessionId: string, r: Revocation): Promise<boolean> {
  const userId = await sessions.revokeSession(trx, r.app.id, sessionId, iso(r.now));
  if (userId !== undefined) await recordRevoked(trx, userId, [sessionId], r);
  return userId !== undefined;
}

/**
 * Ends a session the service found stolen or its user banned during a refresh (no request of a user's
 * own asked for it: the system is the actor), with its event.
 */
export async function endSessionBySystem(db: Db, appId: string, sessionId: string, reason: RevokeReason, now: Date): Promise<void> {
  const app = await findApplication(db, appId);
  if (!app) return void (await sessions.revokeSession(db, appId, sessionId, iso(now)));
  await inTransaction(db, (trx) => revokeOneSession(trx, sessionId, { app, reason, context: SYSTEM_CONTEXT, now }));
}
