import { hostname } from 'node:os';
import { addSeconds, iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { supportsSkipLocked } from '../../store/dialect.js';
import * as deliveries from '../../store/repos/webhook-deliveries.js';
import { findEndpointsByIds, markEndpointHealthy } from '../../store/repos/webhook-endpoints.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../store/types.js';
import { inTransaction } from '../../store/transaction.js';
import { sendWebhook, type AttemptResult } from './sender.js';
import { signedHeaders } from './signature.js';
import { signingSecrets } from './endpoints.js';
import { recordFailedAttempt } from './failures.js';

export type WebhookWorkerDeps = Pick<Deps, 'db' | 'store' | 'clock' | 'config' | 'masterKeys' | 'log'>;

/** After SIGTERM, how long attempts in flight may still finish; the rest are cut and their rows released. */
export const STOP_WAIT_MS = 2_000;
/** How often the worker looks for due deliveries (events queued on any node, retries coming due). */
const POLL_MS = 500;
/** Attempts in flight per node. */
const CONCURRENCY = 64;

export interface WebhookWorker {
  /** Stops claiming, lets attempts in flight finish for at most STOP_WAIT_MS (and `waitMs`), then cuts and releases the rest. */
  stop(waitMs: number): Promise<void>;
}

async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/**
 * The webhook worker, one per node: leases due deliveries (one node per row, for the attempt's timeout and
 * 5 s, at most 55 s), makes each attempt, and records it: succeeded, retried after the next delay of
 * WEBHOOK_RETRY_SCHEDULE, or failed after the last. A node that dies mid-attempt leaves a lease that runs
 * out, and any node makes the attempt again: at least once to the receiver.
 */
export function startWebhookWorker(deps: WebhookWorkerDeps): WebhookWorker {
  const worker = new DeliveryWorker(deps);
  worker.start();
  return { stop: (waitMs) => worker.stop(waitMs) };
}

/** Why an attempt was cut by stop(): its row is released, not counted as a failed attempt. */
class ShuttingDown extends Error {}

class DeliveryWorker {
  private readonly holder = `${hostname()}:${process.pid}:${newUuid()}`;
  private readonly leaseSeconds: number;
  private readonly inFlight = new Map<Promise<void>, AbortController>();
  private claiming = false;
  private again = false;
  private stopped = false;
  private lastClaimError = 0;
  private poll: NodeJS.Timeout | undefined;

  constructor(private readonly deps: WebhookWorkerDeps) {
    this.leaseSeconds = Math.ceil(deps.config.webhookTimeoutMs / 1000) + 5;
  }

  start(): void {
    this.poll = setInterval(() => void this.claim(), POLL_MS);
    this.poll.unref();
    void this.claim();
  }

  async stop(waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    this.stopped = true;
    clearInterval(this.poll);
    const settled = () => Promise.allSettled([...this.inFlight.keys()]);
    await within(settled(), Math.min(STOP_WAIT_MS, waitMs));
    for (const abort of this.inFlight.values()) abort.abort(new ShuttingDown('shutting down'));
    await within(settled(), Math.max(0, deadline - Date.now()));
  }

  private async claim(): Promise<void> {
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = true;
    try {
      do {
        this.again = false;
        const room = CONCURRENCY - this.inFlight.size;
        if (this.stopped || room <= 0) break;
        const rows = await this.claimRows(room);
        if (rows.length === 0) break;
        const endpoints = new Map((await findEndpointsByIds(this.deps.db, [...new Set(rows.map((r) => r.endpoint_id))])).map((e) => [e.id, e]));
        for (const row of rows) this.run(row, endpoints.get(row.endpoint_id));
        if (rows.length === room) this.again = true;
      } while (this.again && !this.stopped);
    } catch (error) {
      if (Date.now() - this.lastClaimError > 60_000) {
        this.lastClaimError = Date.now();
        this.deps.log.warn({ error: (error as Error).message }, 'webhook worker cannot reach the delivery queue; retrying');
      }
    } finally {
      this.claiming = false;
    }
  }

  private async claimRows(room: number): Promise<WebhookDeliveryRow[]> {
    const now = this.deps.clock.now();
    if (!(await deliveries.anyDueDelivery(this.deps.db, iso(now)))) return [];
    return inTransaction(this.deps.db, (trx) =>
      deliveries.claimDueDeliveries(trx, {
        holder: this.holder,
        now: iso(now),
        leaseUntil: iso(addSeconds(now, this.leaseSeconds)),
        limit: room,
        skipLocked: supportsSkipLocked(this.deps.store.dialect),
      }),
    );
  }

  private run(row: WebhookDeliveryRow, endpoint: WebhookEndpointRow | undefined): void {
    const abort = new AbortController();
    const attempt = this.attempt(row, endpoint, abort)
      .catch((error: Error) => this.deps.log.warn({ delivery_id: row.id, error: error.message }, 'webhook attempt not recorded; retried when its lease ends'))
      .finally(() => {
        this.inFlight.delete(attempt);
        if (!this.stopped) void this.claim();
      });
    this.inFlight.set(attempt, abort);
  }

  private async attempt(row: WebhookDeliveryRow, endpoint: WebhookEndpointRow | undefined, abort: AbortController): Promise<void> {
    const { deps, holder } = this;
    const now = deps.clock.now();
    const attempts = Number(row.attempts) + 1;
    if (!endpoint || Number(endpoint.enabled) !== 1) {
      // Queued before the endpoint was disabled: not attempted; a replay or retry sends it once it is enabled again.
      const error = endpoint ? 'the endpoint is disabled' : 'the endpoint was deleted';
      await deliveries.recordAttempt(deps.db, row.id, holder, { attempts: Number(row.attempts), now: iso(now), statusCode: null, error, nextAttemptAt: null, status: 'failed' });
      return;
    }
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers = signedHeaders(signingSecrets(deps, endpoint, now), row.event_id, timestamp, row.payload);
    const result: AttemptResult = await sendWebhook({
      url: endpoint.url,
      headers,
      body: row.payload,
      timeoutMs: deps.config.webhookTimeoutMs,
      allowPrivate: deps.config.webhookAllowPrivate,
      signal: abort.signal,
    });
    if (abort.signal.reason instanceof ShuttingDown) {
      await deliveries.releaseDelivery(deps.db, row.id, holder).catch(() => {});
      deps.log.info({ delivery_id: row.id, app_id: row.app_id, code: 'webhook_released' }, 'webhook attempt cut by shutdown; released for the next node');
      return;
    }
    const done = deps.clock.now();
    if (result.ok) {
      await deliveries.recordAttempt(deps.db, row.id, holder, { attempts, now: iso(done), statusCode: result.statusCode, error: null, nextAttemptAt: null, status: 'succeeded' });
      if (endpoint.failing_since) await markEndpointHealthy(deps.db, endpoint.id);
      return;
    }
    await recordFailedAttempt(deps, holder, row, endpoint, attempts, result, done);
  }
}
