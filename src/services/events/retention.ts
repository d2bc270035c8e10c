import { hostname } from 'node:os';
import { addSeconds, iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { deleteEventBatchBefore, deleteEventCountsBefore } from '../../store/repos/event-retention.js';
import { acquireJobLock, releaseJobLock } from '../../store/repos/job-locks.js';
import { inTransaction } from '../../store/transaction.js';
import { inBatches, PRUNE_BATCH } from '../maintenance.js';
import { runEvery } from '../schedule.js';
import { eventIdFloor } from './record.js';

// Retention of the audit log (EVENTS_RETENTION_DAYS, docs/events.md): events older than it go, with their
// finished webhook deliveries, and the per-day counts of the days before it. In batches of PRUNE_BATCH
// rows, each a short transaction with a rest after it (maintenance.ts's inBatches), on one node at a time.

export const EVENTS_RETENTION_JOB = 'prune-old-events';
const EVERY_MS = 10 * 60_000;
const LEASE_SECONDS = 5 * 60;

export type RetentionDeps = Pick<Deps, 'db' | 'clock' | 'config'>;

export interface RetentionReport {
  /** False when another node held the job's lease. */
  ran: boolean;
  events: number;
  deliveries: number;
  event_counts: number;
}

/**
 * One pass: every event that occurred more than EVENTS_RETENTION_DAYS before now (by id, which sorts as
 * its time), its finished deliveries, and the counters of the days wholly before that. A delivery still
 * queued keeps its own body and stays until it finishes (then the deliveries' own retention takes it).
 */
export async function pruneOldEvents(deps: RetentionDeps, batch = PRUNE_BATCH, holder = `${hostname()}:${process.pid}:${newUuid()}`): Promise<RetentionReport> {
  const now = deps.clock.now();
  const report: RetentionReport = { ran: false, events: 0, deliveries: 0, event_counts: 0 };
  if (!(await acquireJobLock(deps.db, EVENTS_RETENTION_JOB, holder, iso(now), iso(addSeconds(now, LEASE_SECONDS))))) return report;
  try {
    const cutoff = addSeconds(now, -deps.config.eventsRetentionDays * 86_400);
    const floor = eventIdFloor(cutoff);
    report.events = await inBatches(async () => {
      const gone = await inTransaction(deps.db, (trx) => deleteEventBatchBefore(trx, floor, batch));
      report.deliveries += gone.deliveries;
      return gone.events;
    }, batch);
    report.event_counts = await inBatches(() => deleteEventCountsBefore(deps.db, iso(cutoff).slice(0, 10), batch), batch);
    report.ran = true;
    return report;
  } finally {
    await releaseJobLock(deps.db, EVENTS_RETENTION_JOB, holder, iso(deps.clock.now()));
  }
}

/** Runs the retention pass a minute after start and then every 10 minutes; returns the stop function. */
export function scheduleEventRetention(deps: RetentionDeps & Pick<Deps, 'metrics' | 'log'>): () => void {
  const rows = (report: RetentionReport) => report.events + report.deliveries + report.event_counts;
  return runEvery(
    () =>
      deps.metrics.ops.job('events_retention', () => pruneOldEvents(deps), rows).then(
        (report) => report.ran && rows(report) > 0 && deps.log.info({ job: EVENTS_RETENTION_JOB, ...report }, 'pruned events past their retention'),
        (error) => deps.log.error({ err: error, job: EVENTS_RETENTION_JOB }, 'events retention failed; it resumes on the next run'),
      ),
    EVERY_MS,
    60_000,
  );
}
