import { iso } from '../../clock.js';
import { notFound } from '../../errors.js';
import * as sessionsRepo from '../../store/repos/sessions.js';
import * as users from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import type { EventContext } from '../events/types.js';
import { aalOf, splitAmr } from '../mfa/assurance.js';
import { MY_SESSIONS_MAX } from './my-sessions.js';
import type { UserSession } from './records.js';
import { revokeUserSessions } from './revocations.js';
import type { SessionDeps } from './sessions.js';

// The server's view of one user's sessions (Secret, or the console with X-App-Id; docs/users.md): what
// GET /v1/me/sessions shows the user, with how each was opened, and ending them all at once.

export type { UserSession };

type App = { id: string; tenantId: string };

async function requireUser(deps: SessionDeps, appId: string, userId: string): Promise<void> {
  if (!(await users.findUserById(deps.db, appId, userId))) throw notFound('user not found');
}

/** `GET /v1/users/{user_id}/sessions`: the user's live sessions, newest first (at most MY_SESSIONS_MAX); 404 for a user not of the app. */
export async function listUserSessions(deps: SessionDeps, app: App, userId: string): Promise<UserSession[]> {
  await requireUser(deps, app.id, userId);
  const rows = await sessionsRepo.listLiveUserSessions(deps.db, app.id, userId, iso(deps.clock.now()), MY_SESSIONS_MAX);
  return rows.map((row) => {
    const amr = splitAmr(row.amr);
    return {
      session_id: row.id,
      created_at: row.created_at,
      last_used_at: row.rotated_at ?? row.created_at,
      expires_at: row.expires_at,
      user_agent: row.user_agent,
      ip: row.ip,
      amr,
      aal: aalOf(amr),
    };
  });
}

/** `POST /v1/users/{user_id}/sessions/revoke`: ends every live session of the user, each with its session.revoked (reason revoked), in one transaction; answers how many. */
export async function revokeAllUserSessions(deps: SessionDeps, app: App, userId: string, context: EventContext): Promise<number> {
  await requireUser(deps, app.id, userId);
  const now = deps.clock.now();
  return inTransaction(deps.db, (trx) => revokeUserSessions(trx, userId, { app, reason: 'revoked', context, now }));
}
