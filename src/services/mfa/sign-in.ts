import { addSeconds, iso } from '../../clock.js';
import { open } from '../../crypto/envelope.js';
import { newOpaqueToken, newUuid, sha256Hex } from '../../crypto/ids.js';
import { recoveryCodeHash } from '../../crypto/recovery-codes.js';
import { matchingStep } from '../../crypto/totp.js';
import { badRequest, unauthorized } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import * as challenges from '../../store/repos/mfa-challenges.js';
import * as factors from '../../store/repos/mfa-factors.js';
import * as recoveryCodes from '../../store/repos/mfa-recovery-codes.js';
import * as users from '../../store/repos/users.js';
import type { User } from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import type { MfaFactorRow } from '../../store/types.js';
import type { Deps } from '../../deps.js';
import type { AccountDeps } from '../accounts/account-deps.js';
import { joinAmr, splitAmr, type Amr } from './assurance.js';
import { queueFactorNotice } from './factors.js';
import { totpSecretBinding } from './totp-factors.js';
import { FAILED_CODES_BEFORE_LOCK, factorLocked, isLocked, lockSchedule } from './lockout.js';
import { recordingBanRefusal } from '../sessions/sign-in-failed.js';
import { refuseBanned, startSession, type ClientInfo, type InWrite, type SessionDeps, type SessionOpening, type SessionTokens } from '../sessions/sessions.js';

// Sign-in with a second factor (docs/mfa.md). A first factor that succeeds for a user with a verified
// factor answers an MFA challenge instead of a session: a short-lived, single-use token that, with a
// TOTP code, a recovery code or a passkey, becomes the session the first factor would have made.

export const MFA_CHALLENGE_SECONDS = 5 * 60;

export type MfaDeps = AccountDeps & Pick<Deps, 'masterKeys'>;

/** What a first factor answers when a second is needed. */
export interface MfaChallenge {
  mfa_required: true;
  mfa_token: string;
  expires_at: string;
  factors: { factor_id: string; type: 'totp' | 'webauthn'; friendly_name: string | null }[];
}

export type SignInResult = { tokens: SessionTokens; mfa?: undefined } | { mfa: MfaChallenge; tokens?: undefined };

/**
 * The end of every interactive first factor: a session, or an MFA challenge when the user has a
 * verified factor. `amr` names the first factor. Bots and server-issued sign-in tokens never come here.
 */
export async function finishSignIn(deps: SessionDeps, app: Pick<Application, 'id' | 'tenantId'>, user: User, amr: Amr[], opening: SessionOpening, client?: ClientInfo, inWrite?: InWrite): Promise<SignInResult> {
  // Before any second factor is asked for: a banned user gets no MFA challenge either (and the refusal is signin.failed).
  const context = opening.context ?? { actor: { type: 'user' as const, id: user.id }, ip: client?.ip ?? null, userAgent: client?.userAgent ?? null };
  await recordingBanRefusal(deps, app, { userId: user.id, method: opening.method, provider: opening.provider, context }, async () => refuseBanned(user));
  const verified = user.isBot ? [] : await factors.listFactors(deps.db, app.id, user.id, { verifiedOnly: true });
  if (verified.length === 0) return { tokens: await startSession(deps, app, user, { amr, client, inWrite, opening }) };
  const token = newOpaqueToken('mfa_');
  const now = deps.clock.now();
  const expiresAt = iso(addSeconds(now, MFA_CHALLENGE_SECONDS));
  const challenge = { id: newUuid(), appId: app.id, userId: user.id, tokenHash: sha256Hex(token), amr: joinAmr(amr), method: opening.method, provider: opening.provider ?? null, now: iso(now), expiresAt };
  // `inWrite` commits with the challenge: the first factor's own write when a second is needed.
  if (inWrite) await inTransaction(deps.db, async (trx) => (await inWrite(trx), challenges.insertChallenge(trx, challenge)));
  else await challenges.insertChallenge(deps.db, challenge);
  return {
    mfa: {
      mfa_required: true,
      mfa_token: token,
      expires_at: expiresAt,
      factors: verified.map(offeredFactor),
    },
  };
}

/** A factor as a challenge offers it: no dates, no status (only verified ones are offered). */
const offeredFactor = (f: MfaFactorRow) => ({ factor_id: f.id, type: f.type, friendly_name: f.friendly_name });

/** What completes a challenge; a passkey's check answers the factor that signed, or throws. */
export type MfaProof = { code: string; factorId?: string } | { recoveryCode: string } | { passkey: (challenge: LiveChallenge) => Promise<MfaFactorRow | undefined> };

export interface LiveChallenge {
  id: string;
  userId: string;
  amr: string[];
  /** The first factor's method and provider, for the session.created of the session this completes. */
  opening: SessionOpening;
  webauthnChallenge: string | null;
  expiresAt: string;
}

const invalidToken = () => unauthorized('invalid or expired mfa_token: sign in again', 'invalid_mfa_token');

/** The live challenge of the token, or 401. */
export async function liveChallenge(deps: Pick<AccountDeps, 'db' | 'clock'>, app: Application, mfaToken: string): Promise<LiveChallenge> {
  const row = await challenges.findLiveChallenge(deps.db, app.id, sha256Hex(mfaToken), iso(deps.clock.now()));
  if (!row) throw invalidToken();
  const method = (row.method ?? (row.amr.startsWith('pwd') ? 'password' : 'code')) as SessionOpening['method'];
  return { id: row.id, userId: row.user_id, amr: splitAmr(row.amr), opening: { method, ...(row.provider ? { provider: row.provider } : {}) }, webauthnChallenge: row.webauthn_challenge, expiresAt: row.expires_at };
}

/**
 * `POST /v1/mfa/challenge`: the factors a live challenge may be completed with, and when it ends, for a page
 * that holds only the mfa_token (a link or an OAuth redirect landed with `?mfa_token=`). Reads; spends nothing.
 */
export async function describeChallenge(deps: Pick<AccountDeps, 'db' | 'clock'>, app: Application, mfaToken: string): Promise<Omit<MfaChallenge, 'mfa_token'>> {
  const challenge = await liveChallenge(deps, app, mfaToken);
  const verified = await factors.listFactors(deps.db, app.id, challenge.userId, { verifiedOnly: true });
  return { mfa_required: true, expires_at: challenge.expiresAt, factors: verified.map(offeredFactor) };
}

/** A guess that failed: counted against the challenge (in the write that checks the limit), then 400, or 401 once it is spent. */
async function wrongGuess(deps: Pick<AccountDeps, 'db' | 'clock'>, app: Application, challenge: LiveChallenge, detail: string): Promise<never> {
  const used = await challenges.countWrongGuess(deps.db, app.id, challenge.id, iso(deps.clock.now()));
  if (used === undefined) throw invalidToken();
  if (used >= challenges.MFA_ATTEMPTS) throw unauthorized(`${detail}; that was the last try: sign in again`, 'invalid_mfa_token');
  throw badRequest(detail, 'invalid_code');
}

/**
 * A wrong TOTP code: counted on each factor it was tried against (lockout.ts), in one transaction
 * with the notice of a run reaching the lock (once per run: only the write that makes the count
 * FAILED_CODES_BEFORE_LOCK sends it), then against the challenge. When every factor was locked meanwhile
 * by concurrent guesses, nothing is counted and the answer is the lock's.
 */
async function wrongCode(deps: MfaDeps, app: Application, user: User, challenge: LiveChallenge, tried: MfaFactorRow[]): Promise<never> {
  const now = deps.clock.now();
  const schedule = lockSchedule(now);
  let counted = 0;
  let noticed = false;
  await inTransaction(deps.db, async (trx) => {
    // Afresh on each run: a transaction PostgreSQL ended for contention runs again (store/transaction.ts).
    counted = 0;
    noticed = false;
    for (const factor of tried) {
      const failed = await factors.countFailedCode(trx, app.id, factor.id, iso(now), schedule);
      if (failed === undefined) continue;
      counted++;
      if (failed === FAILED_CODES_BEFORE_LOCK) {
        await queueFactorNotice(deps, trx, app, user, 'factor_locked');
        noticed = true;
      }
    }
  });
  if (noticed) deps.mailSignal.wake();
  if (counted === 0) await refuseIfLocked(deps, app, user.id, tried, now);
  return wrongGuess(deps, app, challenge, 'invalid code');
}

/** Throws the lock's 429 when any of `candidates` is locked as stored now (a concurrent guess locked it). */
async function refuseIfLocked(deps: Pick<AccountDeps, 'db'>, app: Application, userId: string, candidates: MfaFactorRow[], now: Date): Promise<void> {
  const rows = await factors.listFactors(deps.db, app.id, userId, { verifiedOnly: true });
  const untils = rows.filter((f) => candidates.some((c) => c.id === f.id) && isLocked(f, now)).map((f) => f.locked_until!);
  if (untils.length > 0) throw factorLocked(untils, now);
}

const rolledBack = new Error('second factor refused');

/**
 * `POST /v1/mfa/verify`: completes the challenge with a TOTP code, a recovery code or a passkey, and
 * starts the session (its amr: the first factor's and the second's). The challenge is consumed and the
 * factor's step (or the recovery code) used in one transaction of conditional writes: a code, a step or
 * a recovery code is accepted once, however many requests race on however many nodes. A TOTP factor
 * with 5 wrong codes in a row, over any number of challenges, refuses codes for a while (lockout.ts).
 */
export async function verifyMfa(deps: MfaDeps, app: Application, mfaToken: string, proof: MfaProof, client?: ClientInfo): Promise<SessionTokens> {
  const challenge = await liveChallenge(deps, app, mfaToken);
  const user = await users.findUserById(deps.db, app.id, challenge.userId);
  if (!user) throw invalidToken();
  const at = deps.clock.now();
  const now = iso(at);
  let second: Amr;
  let use: (trx: typeof deps.db) => Promise<boolean>;
  let lockable: MfaFactorRow | undefined;
  if ('code' in proof) {
    const totps = (await factors.listFactors(deps.db, app.id, user.id, { verifiedOnly: true })).filter(
      (f) => f.type === 'totp' && (proof.factorId === undefined || f.id === proof.factorId),
    );
    if (proof.factorId !== undefined && totps.length === 0) throw badRequest('factor_id is not a TOTP factor of this user');
    if (totps.length === 0) return wrongGuess(deps, app, challenge, 'invalid code');
    // A locked factor's code is not even checked: the refusal is the same whether it was right or wrong.
    const unlocked = totps.filter((f) => !isLocked(f, at));
    if (unlocked.length === 0) throw factorLocked(totps.map((f) => f.locked_until!), at);
    const match = unlocked
      .map((f) => ({ factor: f, step: matchingStep(open(deps.masterKeys, f.secret_sealed!, totpSecretBinding(f.id)), proof.code, at) }))
      .find((m) => m.step !== undefined);
    if (!match) return wrongCode(deps, app, user, challenge, unlocked);
    second = 'otp';
    lockable = match.factor;
    use = (trx) => factors.advanceTotpStep(trx, app.id, match.factor.id, match.step!, now);
  } else if ('recoveryCode' in proof) {
    second = 'recovery';
    const hash = recoveryCodeHash(proof.recoveryCode);
    use = (trx) => recoveryCodes.consumeRecoveryCode(trx, app.id, user.id, hash, now);
  } else {
    const factor = await proof.passkey(challenge);
    if (!factor) return wrongGuess(deps, app, challenge, 'the passkey could not be verified');
    second = 'webauthn';
    use = async () => factor.user_id === user.id;
  }
  let dead = false;
  try {
    await inTransaction(deps.db, async (trx) => {
      if (!(await challenges.consumeChallenge(trx, app.id, challenge.id, now))) {
        dead = true;
        throw rolledBack;
      }
      if (!(await use(trx))) throw rolledBack;
    });
  } catch (error) {
    if (error !== rolledBack) throw error;
    if (dead) throw invalidToken();
    // A right code that a concurrent wrong one locked out first: refused as any code of a locked factor.
    if (lockable) await refuseIfLocked(deps, app, user.id, [lockable], at);
    // The code was right for a step already used (a replay), or the recovery code is unknown or spent.
    return wrongGuess(deps, app, challenge, second === 'otp' ? 'invalid code: this code was already used' : 'invalid recovery code');
  }
  return startSession(deps, app, user, { amr: [...(challenge.amr as Amr[]), second], client, opening: challenge.opening });
}
