import type { Clock } from '../../clock.js';
import type { Deps } from '../../deps.js';
import { forbidden } from '../../errors.js';
import * as factors from '../../store/repos/mfa-factors.js';
import type { Aal } from '../mfa/assurance.js';

// What a sensitive change asks of the session making it (docs/account.md, docs/mfa.md): a recent sign-in,
// read from the session's `auth_time` (the access token's `iat` is renewed by every refresh, so it says
// nothing about when the user last proved who they are), and, once the user has a second factor, a
// session that used one (aal2).

/** How recent a sign-in must be for the changes that ask for one (deleting the account, removing a factor, ...). */
export const RECENT_SIGN_IN_SECONDS = 10 * 60;

/** The session as these rules read it, from its access token. */
export interface StepUpSession {
  userId: string;
  /** The access token's `auth_time` (Unix seconds); undefined for a token signed before it existed. */
  authTime: number | undefined;
  aal: Aal;
}

/** Whether the session's sign-in was within RECENT_SIGN_IN_SECONDS; a token without auth_time never was. */
export function signedInRecently(clock: Clock, session: Pick<StepUpSession, 'authTime'>): boolean {
  if (session.authTime === undefined) return false;
  return clock.now().getTime() / 1000 - session.authTime <= RECENT_SIGN_IN_SECONDS;
}

/**
 * 403 `aal2_required` for an aal1 session of a user with a verified factor: a session opened before the
 * first enrollment, or one made with a stolen first factor, must not take the account over (change its
 * email or password, sign its owner out, delete it, change its factors). `what` ends the detail.
 */
export async function requireAal2WhenEnrolled(deps: Pick<Deps, 'db'>, appId: string, session: Pick<StepUpSession, 'userId' | 'aal'>, what: string): Promise<void> {
  if (session.aal === 'aal2') return;
  if (await factors.hasVerifiedFactor(deps.db, appId, session.userId)) {
    throw forbidden(`this account has a second factor: sign in with it to ${what}`, 'aal2_required');
  }
}
