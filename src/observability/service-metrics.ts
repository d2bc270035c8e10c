import { Counter, Gauge, type Metric } from 'prom-client';
import { RELEASE } from '../release.js';
import { createOpsMetrics, type OpsMetrics } from './ops-metrics.js';
import { createWebhookMetrics, type WebhookMetrics } from './webhook-metrics.js';

/**
 * Counters the service itself keeps (outages, the mail outbox), created once in deps.ts and registered
 * on GET /metrics beside the HTTP and process metrics.
 */
export interface ServiceMetrics {
  /** Requests answered 503 because the database could not serve them, by cause (store/dialect.ts). */
  databaseUnavailable: Counter<'cause'>;
  /** PostgreSQL transactions ended for a deadlock or serialization failure, by cause and how they ended (store/transaction.ts). */
  databaseContended: Counter<'cause' | 'outcome'>;
  /** Outbox emails handed to the relay (or the dev outbox). */
  mailSent: Counter;
  /** Send attempts that failed and will be retried. */
  mailFailedAttempts: Counter;
  /** Emails given up on after MAIL_GIVE_UP_SECONDS of retrying (logged at error level, row kept). */
  mailGivenUp: Counter;
  /** Emails waiting in the outbox (not given up), as this node last counted them. */
  mailOutboxPending: Gauge;
  /** SQLite: write-ahead log frames (page writes) the server's checkpoint thread copied into the database file (store/sqlite-checkpoints.ts). */
  sqliteCheckpointedFrames: Counter;
  /** Redis, the pool, the blob store, background jobs and 429s (ops-metrics.ts). */
  ops: OpsMetrics;
  /** Webhook attempts by outcome and the queue's depth (webhook-metrics.ts). */
  webhooks: WebhookMetrics;
  all: Metric[];
}

/** gatehouse_build_info{version,commit} 1: which release this process runs (src/release.ts). */
function buildInfo(): Gauge<'version' | 'commit'> {
  const gauge = new Gauge({ name: 'gatehouse_build_info', help: 'The release this process runs: package version and commit, always 1', labelNames: ['version', 'commit'] as const, registers: [] });
  gauge.set({ version: RELEASE.version, commit: RELEASE.commit }, 1);
  return gauge;
}

/** A counter on no registry but `all` (deps.ts registers that on GET /metrics). */
function counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [] });
}

export function createServiceMetrics(): ServiceMetrics {
  const databaseUnavailable = counter('gatehouse_database_unavailable_total', 'Requests answered 503 because the database was unreachable, restarting, busy or too slow, by cause', ['cause']);
  const databaseContended = counter(
    'gatehouse_db_transactions_contended_total',
    'Transactions PostgreSQL ended for a deadlock or serialization failure, by cause; outcome: retried (a re-run committed), gave_up (retries spent: 503), failed (a re-run failed otherwise)',
    ['cause', 'outcome'],
  );
  const mailSent = counter('gatehouse_mail_sent_total', 'Outbox emails sent');
  const mailFailedAttempts = counter('gatehouse_mail_failed_attempts_total', 'Outbox send attempts that failed and will be retried');
  const mailGivenUp = counter('gatehouse_mail_given_up_total', 'Outbox emails given up on after retrying for MAIL_GIVE_UP_SECONDS');
  const mailOutboxPending = new Gauge({ name: 'gatehouse_mail_outbox_pending', help: 'Emails waiting in the outbox (not given up), as this node last counted them', registers: [] });
  const sqliteCheckpointedFrames = counter('gatehouse_sqlite_checkpointed_frames_total', "SQLite: write-ahead log frames (page writes) the server's checkpoint thread copied into the database file");
  const ops = createOpsMetrics();
  const webhooks = createWebhookMetrics();
  return {
    ops,
    webhooks,
    databaseUnavailable,
    databaseContended,
    mailSent,
    mailFailedAttempts,
    mailGivenUp,
    mailOutboxPending,
    sqliteCheckpointedFrames,
    all: [databaseUnavailable, databaseContended, mailSent, mailFailedAttempts, mailGivenUp, mailOutboxPending, sqliteCheckpointedFrames, buildInfo(), ...ops.all, ...webhooks.all],
  };
}
