import { recordEvent } from '../events/record.js';
import { eventOf, type EventContext } from '../events/types.js';
import { recordUserUpdated } from './user-updates.js';
import { iso } from '../../clock.js';
import { badRequest, conflict, unauthorized } from '../../errors.js';
import { maskEmail } from '../../observability/mask-email.js';
import type { Application } from '../../store/repos/applications.js';
import { isUniqueViolation } from '../../store/dialect.js';
import * as challenges from '../../store/repos/email-challenges.js';
import * as users from '../../store/repos/users.js';
import type { User } from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import type { AccountDeps } from './account-deps.js';
import { queueEmail } from '../mail/compose.js';
import { landingUrl, withQueryParam } from './password-reset.js';
import { requireAal2WhenEnrolled, type StepUpSession } from '../sessions/step-up.js';
import { consumeUserCode, consumeUserLink, sendEmailChallenge } from './verification.js';

// Change of email (docs/account.md): nothing changes until the new address is proven; the
// unique index on (app_id, email_normalized) decides a race for one address.

const emailTaken = () => conflict('another user of this application has this email', 'email_taken');

async function emailUser(deps: AccountDeps, app: Application, userId: string): Promise<User & { email: string }> {
  const user = await users.findUserById(deps.db, app.id, userId);
  if (!user) throw unauthorized('not authenticated');
  if (user.isBot || user.email === null) throw badRequest('bots have no email to change');
  return user as User & { email: string };
}

/**
 * `POST /v1/me/email`: emails a code and/or link (the app's verification_method) to the new address.
 * 409 when another user of the app holds it (the confirm checks again: the index decides then). A user
 * with a second factor needs an aal2 session: the address is how the account is recovered.
 */
export async function requestEmailChange(
  deps: AccountDeps,
  app: Application,
  session: Pick<StepUpSession, 'userId' | 'aal'>,
  newEmail: string,
  redirectUrl?: string | null,
): Promise<{ status: 'verification_sent' }> {
  const target = landingUrl(deps, app, redirectUrl);
  const user = await emailUser(deps, app, session.userId);
  await requireAal2WhenEnrolled(deps, app.id, session, 'change the email');
  if (users.normalizeEmail(newEmail) === users.normalizeEmail(user.email)) throw badRequest('new_email is already the email of this account');
  if (await users.findUserByEmail(deps.db, app.id, newEmail)) throw emailTaken();
  await sendEmailChallenge(deps, app, user, 'change_email', target, {
    to: newEmail.trim(),
    link: (token) => withQueryParam(target, 'email_change_token', token),
  });
  return { status: 'verification_sent' };
}

export type EmailChangeProof = { code: string } | { token: string };

/**
 * `POST /v1/me/email/confirm`: the user's own live code or token (at most 5 guesses per code, counted
 * in the write that reads it) → the new address, verified; the user's other codes and links die (they
 * went to the old address) and the old address gets a notice, in one transaction. Answers the user.
 * aal2 again for a user with a factor (one may have been added since the change was asked for).
 */
export async function confirmEmailChange(deps: AccountDeps, app: Application, session: Pick<StepUpSession, 'userId' | 'aal'>, proof: EmailChangeProof, context: EventContext): Promise<User> {
  const user = await emailUser(deps, app, session.userId);
  await requireAal2WhenEnrolled(deps, app.id, session, 'change the email');
  const challenge =
    'code' in proof
      ? await consumeUserCode(deps, app.id, user.id, 'change_email', proof.code)
      : await consumeUserLink(deps, app.id, user.id, 'change_email', proof.token);
  if (!challenge?.new_email) {
    throw 'code' in proof ? badRequest('invalid or expired code', 'invalid_code') : badRequest('invalid or expired token', 'invalid_token');
  }
  const newEmail = challenge.new_email;
  const at = deps.clock.now();
  const now = iso(at);
  try {
    await inTransaction(deps.db, async (trx) => {
      if (!(await users.changeEmail(trx, app.id, user.id, newEmail, now))) throw unauthorized('not authenticated');
      await recordEvent(trx, eventOf(context, { type: 'email.changed', tenantId: app.tenantId, appId: app.id, userId: user.id, data: { email: newEmail } }), at);
      await recordUserUpdated(trx, app, user.id, ['email'], context, at);
      await challenges.retireUserChallenges(trx, app.id, user.id, undefined, now);
      // The new address masked, as log lines show one: the notice says where without giving it away.
      await queueEmail({ ...deps, db: trx }, app, 'email_changed', { to: user.email, user, values: { new_email_masked: maskEmail(newEmail) } });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken();
    throw error;
  }
  deps.mailSignal.wake();
  return { ...user, email: newEmail, emailVerified: true, requiresVerification: false };
}
