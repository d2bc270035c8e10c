import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { inTransaction } from '../../store/transaction.js';
import { recordEvent } from '../events/record.js';
import { eventOf, type EventContext } from '../events/types.js';

// signin.failed (docs/events.md): a refused sign-in, recorded on its own, since nothing it refused commits.
// `data` holds the reason and how the user tried (never the address, password or code tried).

export interface SignInFailure {
  userId: string | null;
  /** invalid_credentials, email_not_verified, user_banned. */
  reason: string;
  method: string;
  provider?: string;
  context: EventContext;
}

/** Writes the signin.failed event of a refused sign-in in a transaction of its own. */
export async function recordSignInFailed(deps: Pick<Deps, 'db' | 'clock'>, app: { id: string; tenantId: string }, failure: SignInFailure): Promise<void> {
  const data = { reason: failure.reason, method: failure.method, ...(failure.provider ? { provider: failure.provider } : {}) };
  const event = eventOf(failure.context, { type: 'signin.failed', tenantId: app.tenantId, appId: app.id, userId: failure.userId, data });
  await inTransaction(deps.db, (trx) => recordEvent(trx, event, deps.clock.now()));
}

/** The refusals already recorded: a sign-in step inside another (finishSignIn, then startSession) records one once. */
const recorded = new WeakSet<ApiError>();

/**
 * Runs a sign-in step whose credential already proved right; a 403 user_banned it throws (the ban, read
 * before or found by the statement that opens the session) is recorded as signin.failed, reason
 * user_banned, after its transaction rolled back, then rethrown. Every way of signing in opens its session
 * through startSession (and asks a second factor through finishSignIn), so every path records it.
 */
export async function recordingBanRefusal<T>(deps: Pick<Deps, 'db' | 'clock'>, app: { id: string; tenantId: string }, failure: Omit<SignInFailure, 'reason'>, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'user_banned' && !recorded.has(error)) {
      recorded.add(error);
      await recordSignInFailed(deps, app, { ...failure, reason: 'user_banned' });
    }
    throw error;
  }
}
