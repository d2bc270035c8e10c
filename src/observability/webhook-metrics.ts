import { Counter, type Metric } from 'prom-client';

// The webhook queue on /metrics (docs/operations.md, "Health, metrics and logs"): attempts by outcome on
// this node, and the fleet's queue depth read from the database when /metrics is scraped. Labels are the
// outcome only: never an endpoint's URL, an app, a user or an event.

export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed';

export interface WebhookMetrics {
  /** Delivery attempts this node finished: delivered, failed with a retry to come, failed for good. */
  attempts: Counter<'outcome'>;
  /** Where the queue's depth is read from (deps.ts: the database). */
  watchQueue(depth: () => Promise<number>): void;
  all: Metric[];
}

export function createWebhookMetrics(): WebhookMetrics {
  let depth: (() => Promise<number>) | undefined;
  let last: number | undefined;
  const attempts = new Counter({
    name: 'gatehouse_webhook_attempts_total',
    help: 'Webhook delivery attempts this node finished, by outcome: succeeded, retrying (failed, retried later), failed (for good)',
    labelNames: ['outcome'] as const,
    registers: [],
  });
  for (const outcome of ['succeeded', 'retrying', 'failed'] as const) attempts.inc({ outcome }, 0);
  const name = 'gatehouse_webhook_queue_depth';
  const help = 'Webhook deliveries queued (due now or retried later) across the fleet, read when /metrics is scraped';
  // A scrape while the database is down answers the last depth read, not an error page.
  const queueDepth = {
    name,
    help,
    get: async () => {
      if (depth) last = await depth().catch(() => last);
      return { name, help, type: 'gauge', aggregator: 'max', values: last === undefined ? [] : [{ labels: {}, value: last }] };
    },
  } as unknown as Metric;
  return {
    attempts,
    watchQueue(source) {
      depth = source;
    },
    all: [attempts, queueDepth],
  };
}
