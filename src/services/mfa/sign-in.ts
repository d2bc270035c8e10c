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
import { totpSecretBinding } from './factors.js';
import { startSession, type ClientInfo, type SessionDeps, type SessionTokens } from '../sessions/sessions.js';

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
export async function finishSignIn(deps: SessionDeps, app: Pick<Application, 'id'>, user: User, amr: Amr[], client?: ClientInfo): Promise<SignInResult> {
  const verified = user.isBot ? [] : await factors.listFactors(deps.db, app.id, user.id, { verifiedOnly: true });
  if (verified.length === 0) return { tokens: await startSession(deps, app.id, user, { amr, client }) };
  const token = newOpaqueToken('mfa_');
  const now = deps.clock.now();
  const expiresAt = iso(addSeconds(now, MFA_CHALLENGE_SECONDS));
  await challenges.insertChallenge(deps.db, { id: newUuid(), appId: app.id, userId: user.id, tokenHash: sha256Hex(token), amr: joinAmr(amr), now: iso(now), expiresAt });
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
  webauthnChallenge: string | null;
  expiresAt: string;
}

const invalidToken = () => unauthorized('invalid or expired mfa_token: sign in again', 'invalid_mfa_token');

/** The live challenge of the token, or 401. */
export async function liveChallenge(deps: Pick<AccountDeps, 'db' | 'clock'>, app: Application, mfaToken: string): Promise<LiveChallenge> {
  const row = await challenges.findLiveChallenge(deps.db, app.id, sha256Hex(mfaToken), iso(deps.clock.now()));
  if (!row) throw invalidToken();
  return { id: row.id, userId: row.user_id, amr: splitAmr(row.amr), webauthnChallenge: row.webauthn_challenge, expiresAt: row.expires_at };
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

const rolledBack = new Error('second factor refused');

/**
 * `POST /v1/mfa/verify`: completes the challenge with a TOTP code, a recovery code or a passkey, and
 * starts the session (its amr: the first factor's and the second's). The challenge is consumed and the
 * factor's step (or the recovery code) used in one transaction of conditional writes: a code, a step or
 * a recovery code is accepted once, however many requests race on however many nodes.
 */
export async function verifyMfa(deps: MfaDeps, app: Application, mfaToken: string, proof: MfaProof, client?: ClientInfo): Promise<SessionTokens> {
  const challenge = await liveChallenge(deps, app, mfaToken);
  const user = await users.findUserById(deps.db, app.id, challenge.userId);
  if (!user) throw invalidToken();
  const now = iso(deps.clock.now());
  let second: Amr;
  let use: (trx: typeof deps.db) => Promise<boolean>;
  if ('code' in proof) {
    const totps = (await factors.listFactors(deps.db, app.id, user.id, { verifiedOnly: true })).filter(
      (f) => f.type === 'totp' && (proof.factorId === undefined || f.id === proof.factorId),
    );
    if (proof.factorId !== undefined && totps.length === 0) throw badRequest('factor_id is not a TOTP factor of this user');
    const match = totps
      .map((f) => ({ factor: f, step: matchingStep(open(deps.masterKeys, f.secret_sealed!, totpSecretBinding(f.id)), proof.code, deps.clock.now()) }))
      .find((m) => m.step !== undefined);
    if (!match) return wrongGuess(deps, app, challenge, 'invalid code');
    second = 'otp';
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
    // The code was right for a step already used (a replay), or the recovery code is unknown or spent.
    return wrongGuess(deps, app, challenge, second === 'otp' ? 'invalid code: this code was already used' : 'invalid recovery code');
  }
  return startSession(deps, app.id, user, { amr: [...(challenge.amr as Amr[]), second], client });
}
