import { addSeconds, iso } from '../../clock.js';
import type { Deps } from '../../deps.js';
import * as outbox from '../../store/repos/mail-outbox.js';
import type { MailOutboxRow } from '../../store/types.js';
import { LeasedQueue, ShuttingDown } from '../leased-queue.js';
import { openOutboxMail } from './outbox.js';
import { maskEmailsIn } from '../../observability/mask-email.js';

export type MailWorkerDeps = Pick<Deps, 'db' | 'store' | 'clock' | 'config' | 'masterKeys' | 'mailer' | 'log' | 'metrics' | 'mailSignal'>;

/** How often the worker looks for due emails when nothing woke it (other nodes' rows, retries). */
const POLL_MS = 1_000;
/** Retry delays double from 2 s up to 5 minutes, until the email's give_up_at. */
const FIRST_RETRY_SECONDS = 2;
const MAX_RETRY_SECONDS = 300;

export interface MailWorker {
  /**
   * Stops claiming, closes the transport to new connections, lets the sends in flight finish for at most
   * STOP_WAIT_MS (and `waitMs`), then cuts the rest and releases their rows. Resolves within `waitMs`.
   */
  stop(waitMs: number): Promise<void>;
}

export function retryDelaySeconds(attempts: number): number {
  return Math.min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1));
}

/**
 * Runs one send under `abort`: it is aborted after `ms` (the relay's fault) or by stop(), and the transport
 * drops the connection carrying it, so a send given up on holds no pool slot afterwards.
 */
function withDeadline(send: (signal: AbortSignal) => Promise<void>, ms: number, abort: AbortController): Promise<void> {
  const timer = setTimeout(() => abort.abort(new Error(`no answer from the mail relay within ${ms} ms`)), ms);
  const aborted = new Promise<never>((_, reject) => {
    if (abort.signal.aborted) reject(abort.signal.reason);
    abort.signal.addEventListener('abort', () => reject(abort.signal.reason), { once: true });
  });
  return Promise.race([send(abort.signal), aborted]).finally(() => clearTimeout(timer));
}

/**
 * The relay's own words when it gave any, else the error's message (never the message's content), with
 * any address in it masked: a refusal often quotes the recipient ("550 <alice@example.com>: no such user"),
 * and this text is kept in last_error and logged.
 */
function describe(error: unknown): string {
  const e = error as { cause?: { message?: string; response?: string }; message?: string };
  return maskEmailsIn(String(e?.cause?.response ?? e?.cause?.message ?? e?.message ?? error)).slice(0, 500);
}

/**
 * The mail worker, one per node: claims due outbox rows under a lease (one node per row), sends each
 * within MAIL_SEND_TIMEOUT_MS, deletes what was sent, retries failures with doubling delays, and gives up
 * at the row's give_up_at (MAIL_GIVE_UP_SECONDS after it was queued): logged at error level, counted in
 * gatehouse_mail_given_up_total, the row kept. A node that dies mid-send leaves a lease that runs out
 * after MAIL_SEND_TIMEOUT_MS + 5 s, and the next claim on any node sends the row again: delivery is at
 * least once.
 */
export function startMailWorker(deps: MailWorkerDeps): MailWorker {
  const worker = new OutboxWorker(deps);
  worker.start();
  return { stop: (waitMs) => worker.stop(waitMs) };
}

/**
 * startMailWorker's state: the outbox's claim loop (services/leased-queue.ts: the lease holder, the sends
 * in flight, STOP_WAIT_MS) and the pending gauge. A send cut by stop() has its lease released, so the next
 * node or start sends it at once (at least once, as after a crash); a relay that answers takes
 * milliseconds, one that is silent would otherwise hold the shutdown for its timeouts (issue 38).
 */
class OutboxWorker {
  private readonly queue: LeasedQueue<MailOutboxRow>;
  private gauge: NodeJS.Timeout | undefined;

  constructor(private readonly deps: MailWorkerDeps) {
    this.queue = new LeasedQueue(deps, {
      outage: 'mail worker cannot reach the outbox; retrying',
      concurrency: () => deps.mailer.concurrency,
      leaseSeconds: deps.config.mailSendTimeoutMs / 1000 + 5,
      anyDue: outbox.anyDueMail,
      claimDue: outbox.claimDueMail,
      run: (rows, start) => {
        for (const row of rows) start((abort) => this.deliver(row, abort));
      },
    });
  }

  /** Claims on every signal of a queued email, every POLL_MS, and once now; the pending gauge every 15 s. */
  start(): void {
    this.deps.mailSignal.listen(() => void this.queue.claim());
    this.queue.start(POLL_MS);
    this.gauge = setInterval(() => void this.countPending(), 15_000);
    this.gauge.unref();
    void this.countPending();
  }

  async stop(waitMs: number): Promise<void> {
    await this.queue.stop(waitMs, async () => {
      clearInterval(this.gauge);
      this.deps.mailSignal.listen(() => {});
      // No new connection from now on (a silent relay would hold each for its greeting timeout).
      await this.deps.mailer.close();
    });
  }

  private async deliver(row: MailOutboxRow, abort: AbortController): Promise<void> {
    const { deps } = this;
    const { holder } = this.queue;
    const fields = { outbox_id: row.id, app_id: row.app_id, attempts: row.attempts + 1 };
    let error: unknown;
    try {
      const mail = openOutboxMail(deps.masterKeys, row.id, row.sealed);
      await withDeadline((signal) => deps.mailer.send(mail, signal), deps.config.mailSendTimeoutMs, abort);
      await outbox.deleteSentMail(deps.db, row.id, holder);
      deps.metrics.mailSent.inc();
      return;
    } catch (caught) {
      error = caught;
    }
    if (abort.signal.reason instanceof ShuttingDown) {
      // Not the relay's failure: the row goes back as it was, for the next node or start.
      await outbox.releaseMail(deps.db, row.id, holder).catch(() => {});
      deps.log.info({ ...fields, code: 'mail_released' }, 'email not sent before shutdown; released for the next node');
      return;
    }
    await this.recordFailure(row, fields, describe(error));
  }

  /** A failed send: given up at the row's give_up_at, else rescheduled after the doubling delay. */
  private async recordFailure(row: MailOutboxRow, fields: { outbox_id: string; app_id: string; attempts: number }, lastError: string): Promise<void> {
    const { deps } = this;
    const { holder } = this.queue;
    const { attempts } = fields;
    const now = deps.clock.now();
    try {
      if (iso(now) >= row.give_up_at) {
        await outbox.markMailGivenUp(deps.db, row.id, holder, { attempts, now: iso(now), lastError });
        deps.metrics.mailGivenUp.inc();
        deps.log.error({ ...fields, code: 'mail_failed', error: lastError, queued_at: row.created_at }, 'gave up on an email after retrying');
        return;
      }
      const next = addSeconds(now, retryDelaySeconds(attempts));
      const nextAttemptAt = iso(next) < row.give_up_at ? iso(next) : row.give_up_at;
      await outbox.rescheduleMail(deps.db, row.id, holder, { attempts, nextAttemptAt, lastError });
      deps.metrics.mailFailedAttempts.inc();
      deps.log.warn({ ...fields, code: 'mail_failed', error: lastError, next_attempt_at: nextAttemptAt }, 'email not sent; will retry');
    } catch (dbError) {
      // The lease runs out and the row is claimed again: nothing is lost.
      deps.log.warn({ ...fields, error: lastError, db_error: (dbError as Error).message }, 'email not sent and its retry not recorded; retried when the lease ends');
    }
  }

  private async countPending(): Promise<void> {
    try {
      this.deps.metrics.mailOutboxPending.set(await outbox.countPendingMail(this.deps.db));
    } catch {
      // the claim loop reports outages
    }
  }
}
