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
  const holder = `${hostname()}:${process.pid}:${newUuid()}`;
  const leaseSeconds = deps.config.mailSendTimeoutMs / 1000 + 5;
  // Each send in flight with the controller that cuts it.
  const inFlight = new Map<Promise<void>, AbortController>();
  let claiming = false;
  let again = false;
  let stopped = false;
  let lastClaimError = 0;

  async function deliver(row: MailOutboxRow, abort: AbortController): Promise<void> {
    const attempts = row.attempts + 1;
    const fields = { outbox_id: row.id, app_id: row.app_id, attempts };
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
    const now = deps.clock.now();
    const lastError = describe(error);
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

  async function claim(): Promise<void> {
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        const room = deps.mailer.concurrency - inFlight.size;
        if (stopped || room <= 0) break;
        const now = deps.clock.now();
        const rows = await inTransaction(deps.db, (trx) =>
          outbox.claimDueMail(trx, {
            holder,
            now: iso(now),
            leaseUntil: iso(addSeconds(now, leaseSeconds)),
            limit: room,
            skipLocked: supportsSkipLocked(deps.store.dialect),
          }),
        );
        for (const row of rows) {
          const abort = new AbortController();
          const sending = deliver(row, abort).finally(() => {
            inFlight.delete(sending);
            void claim();
          });
          inFlight.set(sending, abort);
        }
        if (rows.length === room) again = true;
      } while (again && !stopped);
    } catch (error) {
      // A database outage: say so once a minute, keep polling.
      if (Date.now() - lastClaimError > 60_000) {
        lastClaimError = Date.now();
        deps.log.warn({ error: (error as Error).message }, 'mail worker cannot reach the outbox; retrying');
      }
    } finally {
      claiming = false;
    }
  }

  async function countPending(): Promise<void> {
    try {
      deps.metrics.mailOutboxPending.set(await outbox.countPendingMail(deps.db));
    } catch {
      // the claim loop reports outages
    }
  }

  deps.mailSignal.listen(() => void claim());
  const poll = setInterval(() => void claim(), POLL_MS);
  const gauge = setInterval(() => void countPending(), 15_000);
  poll.unref();
  gauge.unref();
  void claim();
  void countPending();

  return {
    async stop(waitMs) {
      const deadline = Date.now() + waitMs;
      stopped = true;
      clearInterval(poll);
      clearInterval(gauge);
      deps.mailSignal.listen(() => {});
      // No new connection from now on (a silent relay would hold each for its greeting timeout).
      await deps.mailer.close();
      const settled = () => Promise.allSettled([...inFlight.keys()]);
      await within(settled(), Math.min(STOP_WAIT_MS, waitMs));
      for (const abort of inFlight.values()) abort.abort(new ShuttingDown('shutting down'));
      // The cut sends release their rows (one short write each) while the database is still open.
      await within(settled(), Math.max(0, deadline - Date.now()));
    },
  };
}
