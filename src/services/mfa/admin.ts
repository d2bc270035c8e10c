import { iso } from '../../clock.js';
import type { EventContext } from '../events/types.js';
import { recordMfaEvent } from './factors.js';
import { inTransaction } from '../../store/transaction.js';
import { notFound } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import * as challenges from '../../store/repos/mfa-challenges.js';
import * as factors from '../../store/repos/mfa-factors.js';
import * as recoveryCodes from '../../store/repos/mfa-recovery-codes.js';
import * as users from '../../store/repos/users.js';
import { queueFactorNotice, toFactorView, type FactorDeps, type FactorView } from './factors.js';
import { unmarkPasswordWithoutSecondFactor } from '../../store/repos/password-marks.js';

// The operator's side of second factors (Secret key, CLI): see a user's factors, and reset them when
// the user lost every one (docs/mfa.md, "Recovery").

async function requireUser(deps: FactorDeps, app: Application, userId: string) {
  const user = await users.findUserById(deps.db, app.id, userId);
  if (!user) throw notFound('user not found');
  return user;
}

/** `GET /v1/users/{user_id}/factors`: the user's factors and unused recovery codes left (never a secret). */
export async function listUserFactors(deps: FactorDeps, app: Application, userId: string): Promise<{ factors: FactorView[]; recovery_codes_remaining: number }> {
  const user = await requireUser(deps, app, userId);
  const rows = await factors.listFactors(deps.db, app.id, user.id);
  return { factors: rows.map(toFactorView), recovery_codes_remaining: await recoveryCodes.countUnusedRecoveryCodes(deps.db, app.id, user.id) };
}

/**
 * `DELETE /v1/users/{user_id}/factors`: removes every factor, recovery code and MFA challenge in flight
 * of the user, in one transaction; their next sign-in asks for the first factor only. Sessions stay (the
 * operator revokes them separately if the account was taken). The user is sent a notice.
 */
export async function resetUserFactors(deps: FactorDeps, app: Application, userId: string, context: EventContext): Promise<{ status: 'deleted' }> {
  const user = await requireUser(deps, app, userId);
  await inTransaction(deps.db, async (trx) => {
    await challenges.deleteUserChallenges(trx, app.id, user.id);
    await recoveryCodes.deleteUserRecoveryCodes(trx, app.id, user.id);
    const now = iso(deps.clock.now());
    // One mfa.factor_removed per factor (read in the transaction that deletes them all).
    for (const factor of await factors.listFactors(trx, app.id, user.id)) {
      await recordMfaEvent(trx, app, user.id, 'mfa.factor_removed', { factor_id: factor.id, type: factor.type }, context, now);
    }
    const removed = await factors.deleteUserFactors(trx, app.id, user.id);
    await unmarkPasswordWithoutSecondFactor(trx, app.id, user.id);
    if (removed > 0) await queueFactorNotice(deps, trx, app, user, 'factors_reset');
  });
  deps.mailSignal.wake();
  return { status: 'deleted' };
}
