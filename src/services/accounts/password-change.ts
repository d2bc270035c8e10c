import { recordEvent } from '../events/record.js';
import { eventOf, type EventContext } from '../events/types.js';
import { revokeOtherUserSessions } from '../sessions/revocations.js';
import { iso } from '../../clock.js';
import { hashPassword, verifyPassword } from '../../crypto/passwords.js';
import { badRequest, conflict, forbidden, unauthorized } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import * as sessionsRepo from '../../store/repos/sessions.js';
import * as users from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import type { AccountDeps } from './account-deps.js';
import { queueEmail } from '../mail/compose.js';
import { requireAal2WhenEnrolled, signedInRecently, type StepUpSession } from '../sessions/step-up.js';

/** The signed-in session a change is made from. */
export interface SessionRef extends StepUpSession {
  sessionId: string;
}

/**
 * `POST /v1/me/password` (docs/account.md). A user with a password proves it (a wrong one is 403;
 * the route counted the attempt in the sign-in windows first); a user without one (OAuth, codes, links)
 * may set one within RECENT_SIGN_IN_SECONDS of signing in (the session's auth_time). A user with a second
 * factor changes it only from an aal2 session. The new hash replaces the old one only if it
 * is still the one checked (one conditional write), every other session is revoked and a notice queued,
 * in one transaction; argon2 runs before it.
 */
export async function changePassword(
  deps: AccountDeps,
  app: Application,
  session: SessionRef,
  input: { currentPassword?: string | null; newPassword: string },
  context: EventContext,
): Promise<{ status: 'password_changed' }> {
  if (!app.passwordsEnabled) throw badRequest('passwords are disabled for this application', 'passwords_disabled');
  const user = await users.findUserById(deps.db, app.id, session.userId);
  if (!user) throw unauthorized('not authenticated');
  if (user.isBot || user.email === null) throw badRequest('bots sign in with their key and have no password');
  await requireAal2WhenEnrolled(deps, app.id, session, 'change the password');
  if (user.passwordHash !== null) {
    if (input.currentPassword == null || input.currentPassword === '') throw badRequest('current_password is required');
    if (!(await verifyPassword(user.passwordHash, input.currentPassword))) throw forbidden('current password is wrong', 'invalid_credentials');
  } else if (!signedInRecently(deps.clock, session)) {
    throw forbidden('sign in again to set a password (a recent sign-in is needed when the account has none)');
  }
  const passwordHash = await hashPassword(input.newPassword);
  const at = deps.clock.now();
  const now = iso(at);
  const changed = await inTransaction(deps.db, async (trx) => {
    if (!(await users.replacePasswordHash(trx, app.id, user.id, user.passwordHash, passwordHash, now))) return false;
    await recordEvent(trx, eventOf(context, { type: 'password.changed', tenantId: app.tenantId, appId: app.id, userId: user.id, data: { via: 'change' } }), at);
    await revokeOtherUserSessions(trx, user.id, session.sessionId, { app, reason: 'password_changed', context, now: at });
    await queueEmail({ ...deps, db: trx }, app, 'password_changed', { to: user.email!, user });
    return true;
  });
  if (!changed) throw conflict('the password was changed meanwhile; try again');
  deps.mailSignal.wake();
  return { status: 'password_changed' };
}
