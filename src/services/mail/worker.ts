import { hostname } from 'node:os';
import { addSeconds, iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { supportsSkipLocked } from '../../store/dialect.js';
import * as outbox from '../../store/repos/mail-outbox.js';
import type { MailOutboxRow } from '../../store/types.js';
import { inTransaction } from '../../store/transaction.js';
import { openOutboxMail } from './outbox.js';
import { maskEmailsIn } from '../../observability/mask-email.js';

export type MailWorkerDeps = Pick<Deps, 'db' | 'store' | 'clock' | 'config' | 'masterKeys' | 'mailer' | 'log' | 'metrics' | 'mailSignal'>;

/**
 * After SIGTERM, how long sends in flight may still finish. A relay that answers takes milliseconds; one
 * that is silent would otherwise hold the shutdown for its timeouts (issue 38). A send cut here has its
 * lease released, so the next node or start sends it at once (at least once, as after a crash).
 */
export const STOP_WAIT_MS = 2_000;
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

async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

export function retryDelaySeconds(attempts: number): number {
  return Math.min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1));
}

/** Why a send was cut by stop(): its row is released, not counted as a failed attempt. */
class ShuttingDown extends Error {}

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

/** startMailWorker's state, each field named: the lease holder, the sends in flight, the claim loop's flags. */
class OutboxWorker {
  private readonly holder = `${hostname()}:${process.pid}:${newUuid()}`;
  private readonly leaseSeconds: number;
  /** Each send in flight with the controller that cuts it. */
  private readonly inFlight = new Map<Promise<void>, AbortController>();
  /** A claim is running; a call meanwhile sets `again`, and the running claim goes round once more. */
  private claiming = false;
  private again = false;
  private stopped = false;
  private lastClaimError = 0;
  private poll: NodeJS.Timeout | undefined;
  private gauge: NodeJS.Timeout | undefined;

  constructor(private readonly deps: MailWorkerDeps) {
    this.leaseSeconds = deps.config.mailSendTimeoutMs / 1000 + 5;
  }

  /** Claims on every signal of a queued email, every POLL_MS, and once now; the pending gauge every 15 s. */
  start(): void {
    this.deps.mailSignal.listen(() => void this.claim());
    this.poll = setInterval(() => void this.claim(), POLL_MS);
    this.gauge = setInterval(() => void this.countPending(), 15_000);
    this.poll.unref();
    this.gauge.unref();
    void this.claim();
    void this.countPending();
  }

  async stop(waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    this.stopped = true;
    clearInterval(this.poll);
    clearInterval(this.gauge);
    this.deps.mailSignal.listen(() => {});
    // No new connection from now on (a silent relay would hold each for its greeting timeout).
    await this.deps.mailer.close();
    const settled = () => Promise.allSettled([...this.inFlight.keys()]);
    await within(settled(), Math.min(STOP_WAIT_MS, waitMs));
    for (const abort of this.inFlight.values()) abort.abort(new ShuttingDown('shutting down'));
    // The cut sends release their rows (one short write each) while the database is still open.
    await within(settled(), Math.max(0, deadline - Date.now()));
  }

  /** Claims due rows while there is room and rows come, one loop at a time. */
  private async claim(): Promise<void> {
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = true;
    try {
      do {
        this.again = false;
        const room = this.deps.mailer.concurrency - this.inFlight.size;
        if (this.stopped || room <= 0) break;
        const rows = await this.claimRows(room);
        for (const row of rows) this.send(row);
        if (rows.length === room) this.again = true;
      } while (this.again && !this.stopped);
    } catch (error) {
      // A database outage: say so once a minute, keep polling.
      if (Date.now() - this.lastClaimError > 60_000) {
        this.lastClaimError = Date.now();
        this.deps.log.warn({ error: (error as Error).message }, 'mail worker cannot reach the outbox; retrying');
      }
    } finally {
      this.claiming = false;
    }
  }

  /** Up to `room` due rows, leased to this worker. */
  private async claimRows(room: number): Promise<MailOutboxRow[]> {
    const now = this.deps.clock.now();
    if (!(await outbox.anyDueMail(this.deps.db, iso(now)))) return [];
    return inTransaction(this.deps.db, (trx) =>
      outbox.claimDueMail(trx, {
        holder: this.holder,
        now: iso(now),
        leaseUntil: iso(addSeconds(now, this.leaseSeconds)),
        limit: room,
        skipLocked: supportsSkipLocked(this.deps.store.dialect),
      }),
    );
  }

  /** Starts a claimed row's send, kept in flight until it settles; its end makes room for another claim. */
  private send(row: MailOutboxRow): void {
    const abort = new AbortController();
    const sending = this.deliver(row, abort).finally(() => {
      this.inFlight.delete(sending);
      void this.claim();
    });
    this.inFlight.set(sending, abort);
  }

  private async deliver(row: MailOutboxRow, abort: AbortController): Promise<void> {
    const { deps, holder } = this;
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
    const { deps, holder } = this;
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
