import { iso } from '../../clock.js';
import type { Deps } from '../../deps.js';
import * as deliveries from '../../store/repos/webhook-deliveries.js';
import { findEndpointsByIds, markEndpointHealthy } from '../../store/repos/webhook-endpoints.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../store/types.js';
import { LeasedQueue, ShuttingDown } from '../leased-queue.js';
import { sendWebhook, type AttemptResult } from './sender.js';
import { signedHeaders } from './signature.js';
import { signingSecrets } from './endpoints.js';
import { recordFailedAttempt } from './failures.js';

export type WebhookWorkerDeps = Pick<Deps, 'db' | 'store' | 'clock' | 'config' | 'masterKeys' | 'log' | 'metrics'>;

/** How often the worker looks for due deliveries (events queued on any node, retries coming due). */
const POLL_MS = 500;
/** Attempts in flight per node. */
const CONCURRENCY = 64;

export interface WebhookWorker {
  /** Stops claiming, lets attempts in flight finish for at most STOP_WAIT_MS (and `waitMs`), then cuts and releases the rest. */
  stop(waitMs: number): Promise<void>;
}

/**
 * The webhook worker, one per node: leases due deliveries (one node per row, for the attempt's timeout and
 * 5 s, at most 55 s), makes each attempt, and records it: succeeded, retried after the next delay of
 * WEBHOOK_RETRY_SCHEDULE, or failed after the last. A node that dies mid-attempt leaves a lease that runs
 * out, and any node makes the attempt again: at least once to the receiver. The claim loop is
 * services/leased-queue.ts.
 */
export function startWebhookWorker(deps: WebhookWorkerDeps): WebhookWorker {
  const queue: LeasedQueue<WebhookDeliveryRow> = new LeasedQueue(deps, {
    outage: 'webhook worker cannot reach the delivery queue; retrying',
    concurrency: () => CONCURRENCY,
    leaseSeconds: Math.ceil(deps.config.webhookTimeoutMs / 1000) + 5,
    anyDue: deliveries.anyDueDelivery,
    claimDue: deliveries.claimDueDeliveries,
    run: async (rows, start) => {
      const endpoints = new Map((await findEndpointsByIds(deps.db, [...new Set(rows.map((r) => r.endpoint_id))])).map((e) => [e.id, e]));
      for (const row of rows) {
        start((abort) =>
          attempt(deps, queue.holder, row, endpoints.get(row.endpoint_id), abort).catch((error: Error) =>
            deps.log.warn({ delivery_id: row.id, error: error.message }, 'webhook attempt not recorded; retried when its lease ends'),
          ),
        );
      }
    },
  });
  queue.start(POLL_MS);
  return { stop: (waitMs) => queue.stop(waitMs) };
}

/** One attempt of a delivery leased to `holder` (the claim loop's), recorded as it ended. */
async function attempt(deps: WebhookWorkerDeps, holder: string, row: WebhookDeliveryRow, endpoint: WebhookEndpointRow | undefined, abort: AbortController): Promise<void> {
  const now = deps.clock.now();
  const attempts = Number(row.attempts) + 1;
  if (!endpoint || Number(endpoint.enabled) !== 1) {
    // Queued before the endpoint was disabled: not attempted; a replay or retry sends it once it is enabled again.
    const error = endpoint ? 'the endpoint is disabled' : 'the endpoint was deleted';
    await deliveries.recordAttempt(deps.db, row.id, holder, { attempts: Number(row.attempts), now: iso(now), statusCode: null, error, nextAttemptAt: null, status: 'failed' });
    deps.metrics.webhooks.attempts.inc({ outcome: 'failed' });
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
    deps.metrics.webhooks.attempts.inc({ outcome: 'succeeded' });
    if (endpoint.failing_since) await markEndpointHealthy(deps.db, endpoint.id);
    return;
  }
  const retried = await recordFailedAttempt(deps, holder, row, endpoint, attempts, result, done);
  deps.metrics.webhooks.attempts.inc({ outcome: retried ? 'retrying' : 'failed' });
}
