import { iso } from '../../clock.js';
import { notFound } from '../../errors.js';
import * as sessionsRepo from '../../store/repos/sessions.js';
import { inTransaction } from '../../store/transaction.js';
import type { EventContext } from '../events/types.js';
import { recordRevoked, revokeOtherUserSessions } from './revocations.js';
import type { SessionDeps } from './sessions.js';

type App = { id: string; tenantId: string };
import { requireAal2WhenEnrolled, type StepUpSession } from './step-up.js';

/** The caller's session as these routes read it. */
export type MySessionCaller = Pick<StepUpSession, 'userId' | 'aal'> & { sessionId: string };

/** Most sessions a user's list shows (newest first): enough for every device, bounded whatever piles up. */
export const MY_SESSIONS_MAX = 100;

export interface MySession {
  session_id: string;
  created_at: string;
  /** The last time the session was used to get tokens: its last refresh, else its sign-in. */
  last_used_at: string;
  user_agent: string | null;
  ip: string | null;
  current: boolean;
}

/** `GET /v1/me/sessions`: the user's live sessions, newest first, the caller's own marked `current`. */
export async function listMySessions(deps: SessionDeps, appId: string, userId: string, currentSessionId: string): Promise<MySession[]> {
  const rows = await sessionsRepo.listLiveUserSessions(deps.db, appId, userId, iso(deps.clock.now()), MY_SESSIONS_MAX);
  return rows.map((row) => ({
    session_id: row.id,
    created_at: row.created_at,
    last_used_at: row.rotated_at ?? row.created_at,
    user_agent: row.user_agent,
    ip: row.ip,
    current: row.id === currentSessionId,
  }));
}

/**
 * `DELETE /v1/me/sessions/{id}`: revokes one of the user's own live sessions; any other id (another
 * user's, another app's, revoked, unknown) is 404. The session row is what every node's guard reads,
 * so its access tokens are refused at once everywhere. Signing out another device needs aal2 once the
 * user has a second factor (an aal1 intruder must not sign the owner out); the caller's own session is
 * a logout, always allowed.
 */
export async function revokeMySession(deps: SessionDeps, app: App, caller: MySessionCaller, sessionId: string, context: EventContext): Promise<void> {
  if (sessionId !== caller.sessionId) await requireAal2WhenEnrolled(deps, app.id, caller, 'sign out other sessions');
  const now = deps.clock.now();
  const revoked = await inTransaction(deps.db, async (trx) => {
    if (!(await sessionsRepo.revokeUserSession(trx, app.id, caller.userId, sessionId, iso(now)))) return false;
    await recordRevoked(trx, caller.userId, [sessionId], { app, reason: sessionId === caller.sessionId ? 'logout' : 'revoked', context, now });
    return true;
  });
  if (!revoked) throw notFound('session not found');
}

/** `POST /v1/me/sessions/revoke_others`: revokes every live session of the user but the caller's (aal2 once the user has a factor); answers how many. */
export async function revokeMyOtherSessions(deps: SessionDeps, app: App, caller: MySessionCaller, context: EventContext): Promise<number> {
  await requireAal2WhenEnrolled(deps, app.id, caller, 'sign out other sessions');
  const now = deps.clock.now();
  return inTransaction(deps.db, (trx) => revokeOtherUserSessions(trx, caller.userId, caller.sessionId, { app, reason: 'others_revoked', context, now }));
}
