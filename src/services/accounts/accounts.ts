import { revokeOneSession, revokeUserSessions } from '../sessions/revocations.js';
import { SYSTEM_CONTEXT } from '../events/types.js';
import { iso } from '../../clock.js';
import { burnPasswordCheck, hashPassword, needsRehash, verifyPassword } from '../../crypto/passwords.js';
import type { Deps } from '../../deps.js';
import { ApiError, badRequest, unauthorized } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import * as sessionsRepo from '../../store/repos/sessions.js';
import * as signUps from '../../store/repos/user-sign-ups.js';
import * as users from '../../store/repos/users.js';
import type { User } from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import type { EmailChallengeRow } from '../../store/types.js';
import { checkRedirect } from '../apps/origins.js';
import type { AccountDeps } from './account-deps.js';
import { finishSignIn, type SignInResult } from '../mfa/sign-in.js';
import type { ClientInfo } from '../sessions/sessions.js';
import { recordSignInFailed } from '../sessions/sign-in-failed.js';
import type { EventContext } from '../events/types.js';
import { forgetEarlierHolder } from './first-proof.js';
import { createUser } from './users.js';
import { consumeCode, consumeLink, sendEmailChallenge } from './verification.js';

const invalidCredentials = () => unauthorized('invalid email or password', 'invalid_credentials');

function checkPasswordAllowed(app: Application, password: string | null | undefined): void {
  if (password != null && !app.passwordsEnabled) throw badRequest('passwords are disabled for this application', 'passwords_disabled');
}

function checkedRedirect(app: Application, redirectUrl: string | null | undefined): string | null {
  return redirectUrl == null ? null : checkRedirect(app, redirectUrl).toString();
}

/**
 * Self sign-up: creates the unverified user and emails a code and/or link. The user, its challenge and
 * the outbox email commit in one transaction, and the answer never waits on the mail relay: a crash
 * leaves either nothing or a user whose email the mail worker will send.
 */
export async function signUp(
  deps: AccountDeps,
  app: Application,
  input: { email: string; password?: string | null; redirectUrl?: string | null; locale?: string | null },
  context: EventContext,
): Promise<{ status: 'verification_sent'; user_id: string }> {
  const redirectUrl = checkedRedirect(app, input.redirectUrl);
  let user: User;
  try {
    user = await createUser(deps, app, input, {
      selfSignUp: true,
      event: { context, source: 'signup' },
      alsoInTransaction: (trx, created) => sendEmailChallenge({ ...deps, db: trx }, app, created as User & { email: string }, 'verify_email', redirectUrl),
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'user_exists' && !(await repeatsPendingPassword(deps, app, input))) {
      await contestSignUp(deps, app, input.email);
    }
    throw error;
  }
  deps.mailSignal.wake();
  return { status: 'verification_sent', user_id: user.id };
}

/**
 * Pre-hijacking by sign-up (docs/auth.md): a sign-up refused (409, or 429 from the per-email
 * window) because an unverified self sign-up holds the email marks that account contested. Whoever then
 * proves the inbox gets the account without the password set before: an attacker who signed up first
 * with the victim's address cannot keep a password on it. A stranger can at worst make a pending user
 * sign in by code or link instead.
 */
export async function contestSignUp(deps: Pick<Deps, 'db'>, app: Application, email: string): Promise<void> {
  await signUps.markSignUpContested(deps.db, app.id, email);
}

/**
 * A refused sign-up that sends the pending account's own password is its owner retrying (a double
 * submit, a lost answer), not a contest: whoever set that password gains nothing by repeating it, and
 * contesting would drop the owner's password when they verify. Costs one argon2 verify, on the 409 path only.
 */
async function repeatsPendingPassword(deps: AccountDeps, app: Application, input: { email: string; password?: string | null }): Promise<boolean> {
  if (!input.password) return false;
  const pending = await users.findUserByEmail(deps.db, app.id, input.email);
  if (!pending?.passwordHash || !pending.requiresVerification) return false;
  return verifyPassword(pending.passwordHash, input.password);
}

/** The app's user with the email, already read (the sign-in guard's statement): undefined when there is none. */
export interface KnownUser {
  user: User | undefined;
}

/**
 * signin.failed (docs/events.md): written on its own, as no change commits with it; `data.reason` and the
 * method only (never the address tried). Sent only to webhook endpoints that name the type.
 */
async function passwordSignInFailed(deps: Pick<AccountDeps, 'db' | 'clock'>, app: Application, userId: string | null, reason: string, client?: ClientInfo): Promise<void> {
  const context = { actor: { type: 'user' as const, id: userId }, ip: client?.ip ?? null, userAgent: client?.userAgent ?? null };
  await recordSignInFailed(deps, app, { userId, reason, method: 'password', context });
}

/**
 * Password sign-in. Unknown emails and users without a password cost the same argon2 time as a
 * wrong password. An unverified self sign-up is told so only after the password proved right.
 * `known`: the user the caller has read already (no second lookup).
 */
export async function signInWithPassword(
  deps: AccountDeps,
  app: Application,
  email: string,
  password: string,
  known?: KnownUser,
  client?: ClientInfo,
): Promise<SignInResult> {
  checkPasswordAllowed(app, password);
  const user = known ? known.user : await users.findUserByEmail(deps.db, app.id, email);
  const ok = user?.passwordHash ? await verifyPassword(user.passwordHash, password) : await burnPasswordCheck(password);
  // A wrong password against an imported hash (md5 answers in microseconds) costs an argon2 check too: never
  // faster than an unknown email, so the time does not tell that the account exists.
  if (!ok && user?.passwordHash && needsRehash(user.passwordHash)) await burnPasswordCheck(password);
  if (!user || !ok) {
    await passwordSignInFailed(deps, app, user?.id ?? null, 'invalid_credentials', client);
    throw invalidCredentials();
  }
  if (user.requiresVerification) {
    await passwordSignInFailed(deps, app, user.id, 'email_not_verified', client);
    throw unauthorized('email not verified: use the code or link we sent, or sign in with a magic link', 'email_not_verified');
  }
  if (needsRehash(user.passwordHash!)) return rehashAndFinish(deps, app, user, password, client);
  return finishSignIn(deps, app, user, ['pwd'], { method: 'password' }, client);
}

/**
 * The first sign-in against an imported hash (docs/import.md): the password, proven right, is hashed with
 * argon2id (before the write) and replaces the old hash in the transaction that opens the session (or the
 * MFA challenge), so the old hash is gone once the user is in. A password changed meanwhile wins: 401.
 */
async function rehashAndFinish(deps: AccountDeps, app: Application, user: User, password: string, client?: ClientInfo): Promise<SignInResult> {
  const fresh = await hashPassword(password);
  return finishSignIn(deps, app, user, ['pwd'], { method: 'password' }, client, async (trx) => {
    if (!(await users.replacePasswordHash(trx, app.id, user.id, user.passwordHash, fresh, iso(deps.clock.now())))) throw invalidCredentials();
  });
}

/**
 * Magic-link sign-in: a verified user gets a link/code to sign in; an unverified one gets a fresh
 * verification email; an unknown email is 401.
 */
export async function signInWithEmail(
  deps: AccountDeps,
  app: Application,
  email: string,
  redirectUrlInput?: string | null,
  known?: KnownUser,
): Promise<{ status: 'magic_link_sent' } | { status: 'verification_sent'; user_id: string }> {
  const redirectUrl = checkedRedirect(app, redirectUrlInput);
  const user = known ? known.user : await users.findUserByEmail(deps.db, app.id, email);
  if (!user || user.email === null) throw unauthorized('no user with this email', 'invalid_credentials');
  const withEmail = user as User & { email: string };
  if (user.emailVerified) {
    await sendEmailChallenge(deps, app, withEmail, 'magic_link', redirectUrl);
    return { status: 'magic_link_sent' };
  }
  await sendEmailChallenge(deps, app, withEmail, 'claim_email', redirectUrl);
  return { status: 'verification_sent', user_id: user.id };
}

/**
 * Marks the email verified when it was not (a code or link proves control of the inbox). Through a
 * claim_email challenge the prover may not be whoever created the account (pre-hijacking: someone
 * signed up first with this address and a password of their own), so the password is dropped and every
 * earlier session revoked before the prover's session is made. Either way, every OAuth identity linked
 * and every second factor (recovery codes and challenges in flight with them) added before the proof is
 * removed in the same transaction (docs/oauth.md, forgetEarlierHolder): they belong to whoever
 * held the account then, and must neither sign in to the owner's nor stand between the owner and it.
 */
async function completeEmailProof(deps: AccountDeps, app: Application, challenge: EmailChallengeRow): Promise<User> {
  const user = await users.findUserById(deps.db, app.id, challenge.user_id);
  if (!user) throw badRequest('invalid or expired code', 'invalid_code');
  if (user.emailVerified && !user.requiresVerification) return user;
  const now = iso(deps.clock.now());
  if (challenge.purpose === 'claim_email') {
    await inTransaction(deps.db, async (trx) => {
      if (await signUps.claimUnverifiedUser(trx, app.id, user.id, now)) {
        await revokeUserSessions(trx, user.id, { app, reason: 'claimed', context: SYSTEM_CONTEXT, now: new Date(now) });
        await forgetEarlierHolder(trx, app.id, user.id);
      }
    });
    return { ...user, emailVerified: true, requiresVerification: false, passwordHash: null };
  }
  // A sign-up's own verification: the claim rule applies only when the account was contested.
  const verified = await inTransaction(deps.db, async (trx) => {
    const result = await signUps.verifySignUpEmail(trx, app.id, user.id, now);
    if (result) await forgetEarlierHolder(trx, app.id, user.id);
    if (result?.contested) await revokeUserSessions(trx, user.id, { app, reason: 'claimed', context: SYSTEM_CONTEXT, now: new Date(now) });
    return result;
  });
  const passwordHash = verified?.contested ? null : user.passwordHash;
  return { ...user, emailVerified: true, requiresVerification: false, passwordHash };
}

/** `POST /v1/verify-code`: a sign-up or magic-link code → a session (or an MFA challenge). */
export async function verifyCode(deps: AccountDeps, app: Application, email: string, code: string, client?: ClientInfo): Promise<SignInResult> {
  const challenge = await consumeCode(deps, app.id, email, code);
  if (!challenge) throw badRequest('invalid or expired code', 'invalid_code');
  const user = await completeEmailProof(deps, app, challenge);
  return finishSignIn(deps, app, user, ['email'], { method: 'code' }, client);
}

/**
 * `GET /v1/email/verify`: an emailed link → a session and where to send the browser. `keyApp` is the
 * app named by a publishable key, when one was sent: it must be the link's app.
 */
export async function verifyLink(
  deps: AccountDeps,
  token: string,
  resolveApp: (appId: string) => Promise<Application | undefined>,
  keyApp?: Application,
  client?: ClientInfo,
): Promise<{ result: SignInResult; redirect: string }> {
  const challenge = await consumeLink(deps, token);
  if (!challenge || (keyApp && keyApp.id !== challenge.app_id)) {
    throw badRequest('invalid or expired token', 'invalid_token');
  }
  const app = await resolveApp(challenge.app_id);
  if (!app) throw badRequest('invalid or expired token', 'invalid_token');
  const user = await completeEmailProof(deps, app, challenge);
  const result = await finishSignIn(deps, app, user, ['email'], { method: 'magic_link' }, client);
  const redirect = challenge.redirect_url ?? (app.domain ? `https://${app.domain}/` : '/');
  return { result, redirect };
}

/** Ends the session (logout). */
export async function logout(deps: AccountDeps, app: { id: string; tenantId: string }, sessionId: string, context: EventContext): Promise<void> {
  const now = deps.clock.now();
  const revoked = await inTransaction(deps.db, (trx) => revokeOneSession(trx, sessionId, { app, reason: 'logout', context, now }));
  if (!revoked) throw unauthorized('session is revoked or expired');
}

/** The signed-in user as `/v1/me` shows it (read fresh: email_verified may have changed since the token). */
export async function currentUser(deps: AccountDeps, appId: string, userId: string): Promise<User> {
  const user = await users.findUserById(deps.db, appId, userId);
  if (!user) throw new ApiError(401, 'unauthenticated', 'not authenticated');
  return user;
}

