import { recordEvent } from '../events/record.js';
import { eventOf, userContext } from '../events/types.js';
import { revokeUserSessions } from '../sessions/revocations.js';
import { iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import { hashPassword } from '../../crypto/passwords.js';
import { badRequest } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import * as sessionsRepo from '../../store/repos/sessions.js';
import * as users from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import type { EmailChallengeRow } from '../../store/types.js';
import type { AccountDeps } from './account-deps.js';
import { forgetEarlierHolder } from './first-proof.js';
import { appFallbackUrl } from './link-landing.js';
import { queueEmail } from '../mail/compose.js';
import { checkRedirect } from '../apps/origins.js';
import { finishSignIn, type SignInResult } from '../mfa/sign-in.js';
import type { ClientInfo } from '../sessions/sessions.js';
import { consumeCode, consumeLink, peekLink, prepareEmailChallenge, rehearseEmailChallenge, storeEmailChallenge } from './verification.js';

// Password reset (docs/account.md). Asking answers the same for every email; confirming follows
// the rules of codes (5 wrong guesses per code in one conditional write, single use).

const PURPOSES = ['password_reset'] as const;

function passwordsOn(app: Application): void {
  if (!app.passwordsEnabled) throw badRequest('passwords are disabled for this application', 'passwords_disabled');
}

/** `url` with `name=value` added to its query (its own query and fragment kept). */
export function withQueryParam(url: string, name: string, value: string): string {
  const target = new URL(url);
  target.searchParams.set(name, value);
  return target.toString();
}

/** Where an emailed link lands: the allow-listed `redirect_url`, else the app's own page (verified domain, first origin). */
export function landingUrl(deps: Pick<AccountDeps, 'config'>, app: Application, redirectUrl: string | null | undefined): string {
  if (redirectUrl != null) return checkRedirect(app, redirectUrl).toString();
  return appFallbackUrl(app) ?? `${deps.config.publicBaseUrl}/`;
}

/**
 * `POST /v1/password_resets`. No account oracle: the answer is the same for an unknown email, a user
 * without a password and a user with one, and so is the work. The code and token are made and the email
 * composed for every request; the challenge's transaction runs for every request (its retiring UPDATE),
 * and only for a user with a password does it also store the challenge and queue the email in the outbox
 * (never sent inline: the relay's timing cannot tell either).
 */
export async function requestPasswordReset(deps: AccountDeps, app: Application, email: string, redirectUrl?: string | null): Promise<{ status: 'reset_sent' }> {
  passwordsOn(app);
  const target = landingUrl(deps, app, redirectUrl);
  const user = await users.findUserByEmail(deps.db, app.id, email);
  const eligible = user !== undefined && user.email !== null && user.passwordHash !== null && !user.isBot;
  const recipient = eligible ? { ...user, email: user.email! } : { id: newUuid(), email: email.trim() };
  const prepared = await prepareEmailChallenge(deps, app, recipient, 'password_reset', target, {
    link: (token) => withQueryParam(target, 'reset_token', token),
  });
  if (eligible) await storeEmailChallenge(deps, prepared);
  else await rehearseEmailChallenge(deps, prepared);
  return { status: 'reset_sent' };
}

export type ResetProof = { email: string; code: string } | { token: string };

/**
 * The reset's challenge, for the windows the route counts before consuming: a token is looked up (not
 * consumed) for the email its windows are keyed by; a code names its email. Undefined for an unknown token.
 */
export async function resetProofEmail(deps: AccountDeps, app: Application, proof: ResetProof): Promise<string | undefined> {
  if ('email' in proof) return proof.email;
  return (await peekLink(deps, app.id, proof.token, PURPOSES))?.email_normalized;
}

/**
 * `POST /v1/password_resets/confirm`: a live reset code or token → the new password, the email counted
 * as verified (OAuth identities and second factors added before a first proof removed), every session of
 * the user revoked, and a new session (as verify-code answers). argon2
 * runs after the proof is consumed (a wrong guess costs no hash) and outside the transaction.
 */
export async function confirmPasswordReset(
  deps: AccountDeps,
  app: Application,
  proof: ResetProof,
  newPassword: string,
  client?: ClientInfo,
): Promise<SignInResult> {
  passwordsOn(app);
  const challenge: EmailChallengeRow | undefined =
    'email' in proof ? await consumeCode(deps, app.id, proof.email, proof.code, PURPOSES) : await consumeLink(deps, proof.token, PURPOSES, app.id);
  const invalid = () => ('email' in proof ? badRequest('invalid or expired code', 'invalid_code') : badRequest('invalid or expired token', 'invalid_token'));
  if (!challenge) throw invalid();
  const user = await users.findUserById(deps.db, app.id, challenge.user_id);
  // The account moved to another address since the email was sent: that inbox no longer speaks for it.
  if (!user || user.email === null || users.normalizeEmail(user.email) !== challenge.email_normalized) throw invalid();
  const passwordHash = await hashPassword(newPassword);
  const at = deps.clock.now();
  const now = iso(at);
  const context = userContext(user.id, client);
  await inTransaction(deps.db, async (trx) => {
    if (!(await users.resetPassword(trx, app.id, user.id, passwordHash, now))) throw invalid();
    await recordEvent(trx, eventOf(context, { type: 'password.changed', tenantId: app.tenantId, appId: app.id, userId: user.id, data: { via: 'reset' } }), at);
    await revokeUserSessions(trx, user.id, { app, reason: 'password_changed', context, now: at });
    // The first proof of the address (docs/oauth.md, docs/mfa.md): identities and factors added while it was unproven go with it.
    if (!user.emailVerified || user.requiresVerification) await forgetEarlierHolder(trx, app.id, user.id);
    await queueEmail({ ...deps, db: trx }, app, 'password_changed', { to: user.email!, user });
  });
  deps.mailSignal.wake();
  // A reset proves the inbox, not a second factor: a user with one is asked for it (docs/mfa.md).
  return finishSignIn(deps, app, { ...user, passwordHash, emailVerified: true, requiresVerification: false }, ['email'], { method: 'reset' }, client);
}
