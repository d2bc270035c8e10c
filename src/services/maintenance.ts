import { hostname } from 'node:os';
import { addSeconds, iso } from '../clock.js';
import { newUuid } from '../crypto/ids.js';
import type { Deps } from '../deps.js';
import * as expired from '../store/repos/expired-rows.js';
import { inTransaction } from '../store/transaction.js';
import { acquireJobLock, releaseJobLock } from '../store/repos/job-locks.js';
import { deleteExpiredOAuthStates } from '../store/repos/oauth-states.js';
import { sweepObjects } from './object-sweep.js';

export const PRUNE_JOB = 'prune-expired-rows';
const PRUNE_EVERY_MS = 10 * 60_000;
const LEASE_SECONDS = 5 * 60;
/** Margin for clocks that differ between nodes: a row is pruned only this long after it died. */
const SKEW_SECONDS = 10 * 60;
const ROTATED_TOKEN_DAYS = 7;
/**
 * A revoked or expired session (and its refresh tokens) is deleted this long after it died: long enough
 * that the metering run for the month it lived in (monthly active users, billing) still counts it.
 */
export const DEAD_SESSION_RETENTION_DAYS = 62;

export type MaintenanceDeps = Pick<Deps, 'db' | 'clock' | 'log'> & Partial<Pick<Deps, 'blobs' | 'config'>>;

export interface PruneReport {
  ran: boolean;
  replay_guards: number;
  email_challenges: number;
  sso_tokens: number;
  refresh_tokens: number;
  oauth_states: number;
  /** Object storage: uploads left by a crash, and blobs whose metadata is gone (when a blob store is given). */
  stale_uploads?: number;
  orphan_blobs?: number;
  sessions: number;
}

/** Deletes dead single-use rows, on one node at a time (a database lease); `ran` false when another node holds it. */
export async function pruneExpiredRows(deps: MaintenanceDeps, holder = `${hostname()}:${process.pid}:${newUuid()}`): Promise<PruneReport> {
  const now = deps.clock.now();
  const report: PruneReport = { ran: false, replay_guards: 0, email_challenges: 0, sso_tokens: 0, refresh_tokens: 0, oauth_states: 0, sessions: 0 };
  if (!(await acquireJobLock(deps.db, PRUNE_JOB, holder, iso(now), iso(addSeconds(now, LEASE_SECONDS))))) return report;
  try {
    const skewed = iso(addSeconds(now, -SKEW_SECONDS));
    report.replay_guards = await expired.deleteExpiredReplayGuards(deps.db, skewed);
    report.email_challenges = await expired.deleteOldEmailChallenges(deps.db, iso(addSeconds(now, -2 * 86_400)));
    report.sso_tokens = await expired.deleteExpiredSsoTokens(deps.db, skewed);
    report.refresh_tokens = await expired.deleteDeadRefreshTokens(deps.db, skewed, iso(addSeconds(now, -ROTATED_TOKEN_DAYS * 86_400)));
    report.oauth_states = await deleteExpiredOAuthStates(deps.db, skewed);
    if (deps.blobs && deps.config) Object.assign(report, await sweepObjects({ ...deps, blobs: deps.blobs, config: deps.config }));
    const deadBefore = iso(addSeconds(now, -DEAD_SESSION_RETENTION_DAYS * 86_400 - SKEW_SECONDS));
    await inTransaction(deps.db, async (trx) => {
      report.refresh_tokens += await expired.deleteRefreshTokensOfDeadSessions(trx, deadBefore);
      report.sessions = await expired.deleteDeadSessions(trx, deadBefore);
    });
    report.ran = true;
    return report;
  } finally {
    await releaseJobLock(deps.db, PRUNE_JOB, holder, iso(deps.clock.now()));
  }
}

/** Runs the clean-up every 10 minutes in the background; returns the stop function. */
export function scheduleMaintenance(deps: MaintenanceDeps): () => void {
  const timer = setInterval(() => {
    pruneExpiredRows(deps).then(
      (report) => report.ran && deps.log.info({ job: PRUNE_JOB, ...report }, 'pruned expired rows'),
      (error) => deps.log.error({ err: error, job: PRUNE_JOB }, 'clean-up failed'),
    );
  }, PRUNE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
