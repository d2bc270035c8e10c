import { hostname } from 'node:os';
import { addSeconds, iso } from '../clock.js';
import { newUuid } from '../crypto/ids.js';
import type { Deps } from '../deps.js';
import * as expired from '../store/repos/expired-rows.js';
import { inTransaction } from '../store/transaction.js';
import { acquireJobLock, releaseJobLock } from '../store/repos/job-locks.js';
import { deleteActiveUsersBefore } from '../store/repos/active-users.js';
import { refreshPlannerStatistics } from '../store/statistics.js';
import { deleteExpiredOAuthStates } from '../store/repos/oauth-states.js';
import { outboxDir } from '../mail/index.js';
import { pruneOutbox } from '../mail/outbox.js';
import { sweepObjects } from './objects/upload-sweep.js';
import { pruneFinishedDeliveries } from '../store/repos/webhook-deliveries.js';
import { CODE_SECONDS, MAGIC_LINK_SECONDS, VERIFY_LINK_SECONDS } from './accounts/verification.js';

export const PRUNE_JOB = 'prune-expired-rows';
/** The longest a code or link lives (a verification link: 24 h). */
const OUTBOX_KEEP_SECONDS = Math.max(CODE_SECONDS, VERIFY_LINK_SECONDS, MAGIC_LINK_SECONDS);
const PRUNE_EVERY_MS = 10 * 60_000;
const LEASE_SECONDS = 5 * 60;
/** Margin for clocks that differ between nodes: a row is pruned only this long after it died. */
const SKEW_SECONDS = 10 * 60;
const ROTATED_TOKEN_DAYS = 7;
/**
 * A revoked or expired session (and its refresh tokens) is deleted this long after it died. (Monthly active
 * users no longer read sessions since migration 0022; the retention stays what operators were told.)
 */
export const DEAD_SESSION_RETENTION_DAYS = 62;
/**
 * An email the relay refused until its give-up time stays this long for the operator to look at (its
 * attempts and masked last_error; the message is sealed), then the clean-up deletes it.
 */
export const GIVEN_UP_MAIL_RETENTION_DAYS = 7;
/** A webhook delivery that succeeded or failed for good stays this long in GET .../deliveries, then goes. */
export const WEBHOOK_DELIVERY_RETENTION_DAYS = 30;

export type MaintenanceDeps = Pick<Deps, 'db' | 'clock' | 'log'> & Partial<Pick<Deps, 'blobs' | 'config'>>;

export interface PruneReport {
  ran: boolean;
  replay_guards: number;
  email_challenges: number;
  sso_tokens: number;
  refresh_tokens: number;
  oauth_states: number;
  /** Second-factor challenges (MFA sign-ins, passkey ceremonies) past their expiry. */
  mfa_challenges: number;
  /** Object storage: uploads left by a crash, and blobs whose metadata is gone (when a blob store is given). */
  stale_uploads?: number;
  orphan_blobs?: number;
  sessions: number;
  /** Marks of monthly active users of months before the last (their counts stay). */
  active_users: number;
  /** Outbox emails given up on more than GIVEN_UP_MAIL_RETENTION_DAYS ago. */
  given_up_mail: number;
  /** Webhook deliveries finished and queued more than WEBHOOK_DELIVERY_RETENTION_DAYS ago. */
  webhook_deliveries: number;
  /** Dev outbox `.eml` files older than the longest code or link lifetime (this node's directory). */
  outbox_files?: number;
}

/**
 * Rows a clean-up statement deletes at most (one short transaction each, on the event loop on SQLite). Each
 * deleted row is an entry in every index of its table, at a random place in a big one: at 1,000,000 sessions a
 * batch of 1,000 took 200-540 ms of CPU (about 0.2-0.5 ms a session), and every request waited
 * (bench/README.md, "Data scale"); a batch of 100 still held the loop for up to 96 ms of CPU, one of 50 for up
 * to 74 ms (checkpoints on commit) and, run inside a server on a machine busy with other work, 88-101 ms of wall
 * time with the checkpoints in their thread. So 25: a batch's cost is its rows'.
 */
export const PRUNE_BATCH = 25;
/** Batches of one kind a run takes at most (500,000 rows); what is left waits for the next run. */
const MAX_BATCHES = 20_000;

/** The longest rest between two batches. */
const MAX_REST_MS = 50;

/**
 * Between two batches the job rests as long as the batch took (at most MAX_REST_MS): requests waiting on the
 * event loop go first (better-sqlite3 runs each statement on it), and the job takes at most about half of a
 * core from them on either database (on PostgreSQL its statements run in a backend on the same cores).
 */
function rest(batchStarted: number): Promise<void> {
  const took = performance.now() - batchStarted;
  return new Promise((resolve) => setTimeout(resolve, Math.min(MAX_REST_MS, took)));
}

/** Repeats a batch delete until a batch comes back short of `batch` (none left) or MAX_BATCHES; answers the rows deleted. */
export async function inBatches(deleteBatch: () => Promise<number>, batch = PRUNE_BATCH): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const started = performance.now();
    const deleted = await deleteBatch();
    total += deleted;
    if (deleted < batch) break;
    await rest(started);
  }
  return total;
}

/**
 * Deletes dead single-use rows, on one node at a time (a database lease); `ran` false when another node holds
 * it. Every delete is a range of an index in batches of PRUNE_BATCH rows (store/repos/expired-rows.ts), so a
 * run costs what it deletes, not what the tables hold; the planner's statistics are refreshed after it.
 */
export async function pruneExpiredRows(deps: MaintenanceDeps, holder = `${hostname()}:${process.pid}:${newUuid()}`): Promise<PruneReport> {
  const now = deps.clock.now();
  const report: PruneReport = { ran: false, replay_guards: 0, email_challenges: 0, sso_tokens: 0, refresh_tokens: 0, oauth_states: 0, mfa_challenges: 0, sessions: 0, active_users: 0, given_up_mail: 0, webhook_deliveries: 0 };
  // Each node's own files, so outside the lease: an email's code and link are dead after the longest lifetime.
  const outbox = deps.config && outboxDir(deps.config);
  if (outbox) report.outbox_files = await pruneOutbox(outbox, addSeconds(now, -OUTBOX_KEEP_SECONDS));
  if (!(await acquireJobLock(deps.db, PRUNE_JOB, holder, iso(now), iso(addSeconds(now, LEASE_SECONDS))))) return report;
  try {
    const skewed = iso(addSeconds(now, -SKEW_SECONDS));
    const timed = (rows: expired.TimedRows, before: string) => inBatches(() => expired.deleteTimedRows(deps.db, rows, before, PRUNE_BATCH));
    report.replay_guards = (await timed('hashcash_spent', skewed)) + (await timed('bot_auth_replays', skewed));
    report.email_challenges = await timed('email_challenges', iso(addSeconds(now, -2 * 86_400)));
    report.sso_tokens = await timed('sso_tokens', skewed);
    report.refresh_tokens = (await timed('refresh_tokens', skewed)) + (await timed('rotated_refresh_tokens', iso(addSeconds(now, -ROTATED_TOKEN_DAYS * 86_400))));
    report.oauth_states = await timed('oauth_states', skewed);
    report.mfa_challenges = (await timed('mfa_challenges', skewed)) + (await timed('webauthn_challenges', skewed));
    report.given_up_mail = await timed('given_up_mail', iso(addSeconds(now, -GIVEN_UP_MAIL_RETENTION_DAYS * 86_400)));
    report.webhook_deliveries = await inBatches(() => pruneFinishedDeliveries(deps.db, iso(addSeconds(now, -WEBHOOK_DELIVERY_RETENTION_DAYS * 86_400)), PRUNE_BATCH));
    if (deps.blobs && deps.config) Object.assign(report, await sweepObjects({ ...deps, blobs: deps.blobs, config: deps.config }));
    const deadBefore = iso(addSeconds(now, -DEAD_SESSION_RETENTION_DAYS * 86_400 - SKEW_SECONDS));
    const swept = await sweepSessions(deps, deadBefore);
    report.sessions = swept.sessions;
    report.refresh_tokens += swept.refreshTokens;
    // A month's marks keep its count exact while it can be written (its own month, and the next for a node
    // whose clock lags); the counts are the figures and stay.
    const keptFrom = monthBefore(skewed);
    report.active_users = await inBatches(() => deleteActiveUsersBefore(deps.db, keptFrom, PRUNE_BATCH));
    await refreshPlannerStatistics(deps.db);
    report.ran = true;
    return report;
  } finally {
    await releaseJobLock(deps.db, PRUNE_JOB, holder, iso(deps.clock.now()));
  }
}

/** 'YYYY-MM' of the month before the one `time` (ISO 8601) falls in. */
function monthBefore(time: string): string {
  const year = Number(time.slice(0, 4));
  const month = Number(time.slice(5, 7));
  return month === 1 ? `${year - 1}-12` : `${year}-${String(month - 1).padStart(2, '0')}`;
}

/**
 * Sessions revoked or expired before `deadBefore` are deleted with their refresh tokens; the clean-up finds
 * them by `sweep_after` (index sessions_sweep), never by a scan: each batch takes the sessions due, deletes
 * the dead among them and postpones the live ones to their revocation or current expiry (expired-rows.ts).
 * Sessions from before migration 0022 (no sweep_after yet) are taken first, once.
 */
async function sweepSessions(deps: MaintenanceDeps, deadBefore: string): Promise<{ sessions: number; refreshTokens: number }> {
  const total = { sessions: 0, refreshTokens: 0 };
  for (const unswept of [true, false]) {
    for (let i = 0; i < MAX_BATCHES; i++) {
      const started = performance.now();
      const due = await expired.findDueSessions(deps.db, deadBefore, PRUNE_BATCH, unswept);
      const isDead = (s: expired.DueSession) => s.expires_at < deadBefore || (s.revoked_at !== null && s.revoked_at < deadBefore);
      const deleted = await inTransaction(deps.db, async (trx) => {
        const gone = await expired.deleteDeadSessions(trx, due.filter(isDead).map((s) => s.id), deadBefore);
        await expired.postponeSessions(trx, due.filter((s) => !isDead(s)).map((s) => s.id));
        return gone;
      });
      total.sessions += deleted.sessions;
      total.refreshTokens += deleted.refreshTokens;
      if (due.length < PRUNE_BATCH) break;
      await rest(started);
    }
  }
  return total;
}

/** Runs the clean-up every 10 minutes in the background; returns the stop function. */
export function scheduleMaintenance(deps: MaintenanceDeps & Pick<Deps, 'metrics'>): () => void {
  const rows = (report: PruneReport) => Object.values(report).reduce<number>((sum, n) => sum + (typeof n === 'number' ? n : 0), 0);
  const timer = setInterval(() => {
    deps.metrics.ops.job('prune', () => pruneExpiredRows(deps), rows).then(
      (report) => report.ran && deps.log.info({ job: PRUNE_JOB, ...report }, 'pruned expired rows'),
      (error) => deps.log.error({ err: error, job: PRUNE_JOB }, 'clean-up failed'),
    );
  }, PRUNE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
