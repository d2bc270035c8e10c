import { recordEvent } from '../events/record.js';
import { eventOf, userContext, type EventContext } from '../events/types.js';
import { revokeOtherUserSessions } from '../sessions/revocations.js';
import { addSeconds, iso } from '../../clock.js';
import { open } from '../../crypto/envelope.js';
import { newRecoveryCodes, recoveryCodeHash } from '../../crypto/recovery-codes.js';
import { matchingStep, newTotpSecret, otpauthUri } from '../../crypto/totp.js';
import type { Deps } from '../../deps.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import type { EmailKind } from '../../mail/kinds.js';
import type { Application } from '../../store/repos/applications.js';
import * as factors from '../../store/repos/mfa-factors.js';
import * as recoveryCodes from '../../store/repos/mfa-recovery-codes.js';
import * as sessionsRepo from '../../store/repos/sessions.js';
import * as users from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import type { Db } from '../../store/db.js';
import type { MfaFactorRow } from '../../store/types.js';
import { joinAmr, type Aal } from './assurance.js';
import { insertTotpFactor, totpSecretBinding } from './totp-factors.js';
import { markPasswordForSecondFactor, unmarkPasswordWithoutSecondFactor } from '../../store/repos/password-marks.js';
import { queueEmail, type EmailUser } from '../mail/compose.js';
import { reissueAccess } from '../sessions/sessions.js';
import { requireAal2WhenEnrolled, signedInRecently } from '../sessions/step-up.js';

// A user's own second factors (docs/mfa.md): TOTP enrollment and confirmation, the list, renaming,
// removal, recovery codes. Every change emails the user a notice through the outbox.

export type FactorDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'keys' | 'secrets' | 'masterKey' | 'masterKeys' | 'mailSignal' | 'log'>;

/** The signed-in caller, as the session guard read it. */
export interface FactorSession {
  userId: string;
  sessionId: string;
  /** The access token's `auth_time` (services/sessions/step-up.ts). */
  authTime: number | undefined;
  amr: string[];
  aal: Aal;
  /** The request's actor, IP and user agent for the change's event (the user from no known client if absent). */
  context?: EventContext;
}

/** The event context of a change the user makes from `session`. */
export const contextOf = (session: Pick<FactorSession, 'userId' | 'context'>): EventContext => session.context ?? userContext(session.userId);

/** An mfa.* event of the user's (docs/events.md), in the change's transaction. */
export function recordMfaEvent(trx: Db, app: Application, userId: string, type: string, data: Record<string, unknown>, context: EventContext, now: string): Promise<string> {
  return recordEvent(trx, eventOf(context, { type, tenantId: app.tenantId, appId: app.id, userId, data }), new Date(now));
}

/** A user may hold at most this many factors (verified or pending). */
export const MAX_FACTORS = 10;

/** A TOTP enrollment not confirmed within this long is dead (enroll again): a pending secret does not wait for ever. */
export const TOTP_ENROLLMENT_SECONDS = 10 * 60;

export interface FactorView {
  factor_id: string;
  type: 'totp' | 'webauthn';
  friendly_name: string | null;
  status: 'unverified' | 'verified';
  created_at: string;
  last_used_at: string | null;
}

export const toFactorView = (row: MfaFactorRow): FactorView => ({
  factor_id: row.id,
  type: row.type,
  friendly_name: row.friendly_name,
  status: row.status,
  created_at: row.created_at,
  last_used_at: row.last_used_at,
});

/** Queues a notice to the user's address (none for a user without one) in the caller's transaction, in their language. */
export async function queueFactorNotice(deps: FactorDeps, db: Db, app: Application, user: EmailUser, kind: EmailKind): Promise<void> {
  if (!user.email) return;
  await queueEmail({ ...deps, db }, app, kind, { to: user.email, user });
}

async function requireUser(deps: FactorDeps, app: Application, userId: string) {
  const user = await users.findUserById(deps.db, app.id, userId);
  if (!user) throw notFound('user not found');
  return user;
}

/**
 * A user who has a verified factor adds or changes factors only from a session that used one (aal2):
 * a session opened before the first enrollment, or a stolen first factor, cannot add an attacker's.
 */
export async function requireAal2IfEnrolled(deps: FactorDeps, app: Application, session: FactorSession): Promise<void> {
  await requireAal2WhenEnrolled(deps, app.id, session, 'change factors');
}

/**
 * No factor for an unproven address: whoever holds an unverified account may not be its owner (a user
 * made by POST /v1/users, an SSO source's unverified email), and a factor they added would outlive the
 * owner's claim of the address. The claim removes any factor made before it too (services/accounts.ts).
 */
export function requireVerifiedEmail(user: { email: string | null; emailVerified: boolean }): void {
  if (user.email !== null && !user.emailVerified) {
    throw forbidden('verify your email address before adding a second factor (sign in with a code or link sent to it)', 'email_not_verified');
  }
}

/** Drops the user's pending TOTP enrollments and, when `firstFactor`, revokes every session but the caller's: in the write that verifies a factor. */
export async function onFactorVerified(db: Db, app: Application, session: FactorSession, firstFactor: boolean, now: string, factor: { id: string; type: string }): Promise<void> {
  await recordMfaEvent(db, app, session.userId, 'mfa.factor_added', { factor_id: factor.id, type: factor.type }, contextOf(session), now);
  // Release 02c1d09's password sign-in fails closed for this user from now on (docs/upgrading.md).
  await markPasswordForSecondFactor(db, app.id, session.userId);
  // A pending enrollment started before (perhaps from a session that was aal1 then) must not be confirmed after.
  await factors.deleteUnverifiedTotp(db, app.id, session.userId);
  // Sessions opened before the first factor stay aal1: signed out, as a password change signs them out.
  if (firstFactor) await revokeOtherUserSessions(db, session.userId, session.sessionId, { app, reason: 'mfa_enrolled', context: contextOf(session), now: new Date(now) });
}

/** Enough factors already: refuse before adding one. */
export async function checkFactorRoom(deps: FactorDeps, app: Application, userId: string): Promise<void> {
  if ((await factors.listFactors(deps.db, app.id, userId)).length >= MAX_FACTORS) {
    throw badRequest(`a user may have at most ${MAX_FACTORS} factors: remove one first`);
  }
}

/** `POST /v1/me/factors/totp`: a new, unconfirmed TOTP factor with its secret, otpauth URI and QR code (shown once). */
export async function enrollTotp(deps: FactorDeps, app: Application, session: FactorSession, friendlyName: string | null) {
  await requireAal2IfEnrolled(deps, app, session);
  const user = await requireUser(deps, app, session.userId);
  requireVerifiedEmail(user);
  await factors.deleteUnverifiedTotp(deps.db, app.id, user.id);
  await checkFactorRoom(deps, app, user.id);
  const secret = newTotpSecret();
  const id = await insertTotpFactor(deps.db, deps.masterKey, { appId: app.id, userId: user.id, secret, status: 'unverified', friendlyName, now: iso(deps.clock.now()) });
  const uri = otpauthUri(app.name, user.email ?? user.id, secret);
  // Loaded here, not at start-up: only an enrollment draws a QR code (the CLI and other routes never do).
  const { default: QRCode } = await import('qrcode');
  const qrCode = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { factor_id: id, type: 'totp' as const, status: 'unverified' as const, friendly_name: friendlyName, totp: { secret, uri, qr_code: qrCode } };
}

/**
 * `POST /v1/me/factors/{factor_id}/verify`: the first code confirms the factor (5 wrong codes, or
 * TOTP_ENROLLMENT_SECONDS gone by, and it is dead: enroll again). A user who has another verified factor
 * confirms only from an aal2 session. The user gets a new set of recovery codes (shown once; any earlier
 * set dies), the session becomes aal2 (a new access token; its refreshes keep it), other pending
 * enrollments are dropped, a first factor signs out every other session, and a notice is sent.
 */
export async function confirmTotp(deps: FactorDeps, app: Application, session: FactorSession, factorId: string, code: string) {
  const factor = await factors.findFactor(deps.db, app.id, session.userId, factorId);
  if (!factor || factor.type !== 'totp') throw notFound('factor not found');
  if (factor.status === 'verified') throw badRequest('this factor is already verified');
  await requireAal2IfEnrolled(deps, app, session);
  const user = await requireUser(deps, app, session.userId);
  const now = iso(deps.clock.now());
  const startedAfter = iso(addSeconds(deps.clock.now(), -TOTP_ENROLLMENT_SECONDS));
  if (factor.created_at <= startedAfter) throw badRequest('this enrollment expired: enroll the factor again');
  const secret = open(deps.masterKeys, factor.secret_sealed!, totpSecretBinding(factor.id));
  const step = matchingStep(secret, code, deps.clock.now());
  if (step === undefined) {
    if (!(await factors.countEnrollAttempt(deps.db, app.id, factor.id, now))) throw badRequest('too many wrong codes: enroll the factor again', 'invalid_code');
    throw badRequest('invalid code', 'invalid_code');
  }
  const codes = newRecoveryCodes();
  const amr = [...new Set([...session.amr, 'otp'])];
  await inTransaction(deps.db, async (trx) => {
    const firstFactor = !(await factors.hasVerifiedFactor(trx, app.id, user.id));
    if (!(await factors.confirmTotpFactor(trx, app.id, factor.id, step, now, startedAfter))) {
      throw badRequest('too many wrong codes, or the enrollment expired: enroll the factor again', 'invalid_code');
    }
    await onFactorVerified(trx, app, session, firstFactor, now, { id: factor.id, type: 'totp' });
    await recoveryCodes.replaceRecoveryCodes(trx, app.id, user.id, codes.map(recoveryCodeHash), now);
    await sessionsRepo.setSessionAmr(trx, app.id, session.sessionId, joinAmr(amr), now);
    await queueFactorNotice(deps, trx, app, user, 'factor_added');
  });
  deps.mailSignal.wake();
  const confirmed = (await factors.findFactor(deps.db, app.id, user.id, factor.id))!;
  const access = await reissueAccess(deps, app.id, user, session.sessionId, amr, session.authTime, app.tokenClaims);
  return { factor: toFactorView(confirmed), recovery_codes: codes, ...access };
}

/** `GET /v1/me/factors`: the user's factors and how many recovery codes are left. */
export async function listMyFactors(deps: FactorDeps, app: Application, userId: string) {
  const rows = await factors.listFactors(deps.db, app.id, userId);
  return { factors: rows.map(toFactorView), recovery_codes_remaining: await recoveryCodes.countUnusedRecoveryCodes(deps.db, app.id, userId) };
}

/** `PATCH /v1/me/factors/{factor_id}`: renames a factor (a passkey's or an authenticator's label). */
export async function renameMyFactor(deps: FactorDeps, app: Application, userId: string, factorId: string, name: string | null): Promise<FactorView> {
  if (!(await factors.renameFactor(deps.db, app.id, userId, factorId, name, iso(deps.clock.now())))) throw notFound('factor not found');
  return toFactorView((await factors.findFactor(deps.db, app.id, userId, factorId))!);
}

/**
 * `DELETE /v1/me/factors/{factor_id}`: needs a recent sign-in (the session's auth_time within 10
 * minutes, as DELETE /v1/me) and, for a verified factor, an aal2 session. The last verified factor takes
 * the recovery codes with it. A notice is sent.
 */
export async function removeMyFactor(deps: FactorDeps, app: Application, session: FactorSession, factorId: string): Promise<{ status: 'deleted' }> {
  if (!signedInRecently(deps.clock, session)) throw forbidden('sign in again to remove a factor', 'reauthentication_required');
  const factor = await factors.findFactor(deps.db, app.id, session.userId, factorId);
  if (!factor) throw notFound('factor not found');
  if (factor.status === 'verified' && session.aal !== 'aal2') throw forbidden('sign in with a second factor to remove one', 'aal2_required');
  const user = await requireUser(deps, app, session.userId);
  await inTransaction(deps.db, async (trx) => {
    if (!(await factors.deleteFactor(trx, app.id, user.id, factor.id))) throw notFound('factor not found');
    if (!(await factors.hasVerifiedFactor(trx, app.id, user.id))) {
      await recoveryCodes.deleteUserRecoveryCodes(trx, app.id, user.id);
      await unmarkPasswordWithoutSecondFactor(trx, app.id, user.id);
    }
    await recordMfaEvent(trx, app, user.id, 'mfa.factor_removed', { factor_id: factor.id, type: factor.type }, contextOf(session), iso(deps.clock.now()));
    if (factor.status === 'verified') await queueFactorNotice(deps, trx, app, user, 'factor_removed');
  });
  deps.mailSignal.wake();
  return { status: 'deleted' };
}

/** `POST /v1/me/recovery_codes`: a new set (the earlier one dies), for an aal2 session of a user with a factor. */
export async function renewRecoveryCodes(deps: FactorDeps, app: Application, session: FactorSession): Promise<{ recovery_codes: string[] }> {
  if (session.aal !== 'aal2') throw forbidden('sign in with a second factor to make new recovery codes', 'aal2_required');
  const user = await requireUser(deps, app, session.userId);
  if (!(await factors.hasVerifiedFactor(deps.db, app.id, user.id))) throw badRequest('recovery codes need a verified factor first');
  const codes = newRecoveryCodes();
  const now = iso(deps.clock.now());
  await inTransaction(deps.db, async (trx) => {
    await recoveryCodes.replaceRecoveryCodes(trx, app.id, user.id, codes.map(recoveryCodeHash), now);
    await recordMfaEvent(trx, app, user.id, 'mfa.recovery_codes_renewed', {}, contextOf(session), now);
    await queueFactorNotice(deps, trx, app, user, 'recovery_codes_renewed');
  });
  deps.mailSignal.wake();
  return { recovery_codes: codes };
}
