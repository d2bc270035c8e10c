import { addSeconds, iso } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { MfaFactorRow } from '../../store/types.js';

// Wrong TOTP codes at sign-in, counted per factor across every MFA challenge (docs/mfa.md, "Wrong codes").
// A challenge allows 5 guesses, but a fresh sign-in with a known password makes a fresh challenge: counted
// only there, a guesser had about 43,000 tries a day. Counted on the factor, the 5th wrong code in a row
// locks it for a minute, and each further one (one guess per lock) doubles the lock up to an hour: at
// most about 35 guesses the first day and 24 a day after, a 1-in-14,000 chance a day of hitting one of
// the 3 codes a step accepts. The factor's right code resets the count. A lock refuses every code,
// right or wrong, before it is checked, so a refusal tells nothing about the code. Recovery codes (50
// random bits) and passkeys are not guessable and are not locked: the owner keeps a way in while
// someone else's guesses lock the authenticator.

/** Wrong codes in a row before the factor locks. */
export const FAILED_CODES_BEFORE_LOCK = 5;
export const FIRST_LOCK_SECONDS = 60;
export const MAX_LOCK_SECONDS = 60 * 60;

/** How long the factor is locked once it has `failedCodes` wrong codes in a row (0: not locked). */
export function lockSeconds(failedCodes: number): number {
  if (failedCodes < FAILED_CODES_BEFORE_LOCK) return 0;
  return Math.min(MAX_LOCK_SECONDS, FIRST_LOCK_SECONDS * 2 ** (failedCodes - FAILED_CODES_BEFORE_LOCK));
}

/**
 * The lock that each count of wrong codes brings, from `now`: `untils[i]` for FAILED_CODES_BEFORE_LOCK + i,
 * the last one for every count beyond (the cap). The repository writes the one that matches the count it
 * makes, in the same statement.
 */
export function lockSchedule(now: Date): { from: number; untils: string[] } {
  const untils: string[] = [];
  for (let count = FAILED_CODES_BEFORE_LOCK; ; count++) {
    untils.push(iso(addSeconds(now, lockSeconds(count))));
    if (lockSeconds(count) === MAX_LOCK_SECONDS) break;
  }
  return { from: FAILED_CODES_BEFORE_LOCK, untils };
}

export const isLocked = (factor: Pick<MfaFactorRow, 'locked_until'>, now: Date) => factor.locked_until !== null && factor.locked_until > iso(now);

/** The refusal of a locked factor: 429 with Retry-After until the earliest of `untils` ends. */
export function factorLocked(untils: string[], now: Date): ApiError {
  const first = untils.reduce((a, b) => (a < b ? a : b));
  const seconds = Math.max(1, Math.ceil((Date.parse(first) - now.getTime()) / 1000));
  return new ApiError(
    429,
    'rate_limited',
    `too many wrong codes: this authenticator refuses codes for ${seconds} second${seconds === 1 ? '' : 's'}; sign in with a recovery code or a passkey, or try again later`,
    { headers: { 'retry-after': String(seconds) } },
  );
}
