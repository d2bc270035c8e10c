import { Counter, Gauge, type Metric } from 'prom-client';

// What an operator alerts on beside the request counters (docs/operations.md, "Health, metrics and logs"):
// Redis, the PostgreSQL pool, the blob store, each background job and the rate limits' refusals. Gauges
// read their source when /metrics is scraped, and counters move only on failures, refusals and job
// runs: nothing here costs a request that succeeds.

/** The PostgreSQL pool as node-postgres counts it. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export type JobName = 'prune' | 'purge' | 'metering' | 'upload_liveness' | 'events_retention';

export interface OpsMetrics {
  /** Rate-limit refusals (429) by the limit's name (a fixed list: never a key, an address or an id). */
  rateLimited: Counter<'limit'>;
  /** Blob store calls that failed (a missing blob on a read included), by operation. */
  blobFailures: Counter<'operation'>;
  /** Where the pool and Redis state are read from, set once the store and the limiter exist (deps.ts). */
  watch(sources: { pool?: () => PoolStats; redis?: () => boolean }): void;
  /** Runs one background job's pass, recording when it ended, how long it took and the rows it handled. */
  job<T>(job: JobName, run: () => Promise<T>, rows: (result: T) => number): Promise<T>;
  all: Metric[];
}

type Sample = { labels: Record<string, string>; value: number };

/** A gauge whose samples are read when /metrics is scraped (none: the metric is left out). */
function scraped(name: string, help: string, samples: () => Sample[]): Metric {
  return { name, help, get: async () => ({ name, help, type: 'gauge', aggregator: 'sum', values: samples() }) } as unknown as Metric;
}

export function createOpsMetrics(): OpsMetrics {
  let pool: (() => PoolStats) | undefined;
  let redis: (() => boolean) | undefined;
  const rateLimited = new Counter({ name: 'gatehouse_rate_limited_total', help: 'Requests refused 429 by a rate limit, by limit name', labelNames: ['limit'] as const, registers: [] });
  const blobFailures = new Counter({ name: 'gatehouse_blob_store_failures_total', help: 'Blob store calls that failed or timed out, by operation', labelNames: ['operation'] as const, registers: [] });
  // Read when scraped, and absent when there is nothing to read (no REDIS_URL; SQLite has no pool).
  const redisUp = scraped('gatehouse_redis_up', "1 while Redis answers the rate limits, 0 while they count in this node's memory (absent without REDIS_URL)", () =>
    redis ? [{ labels: {}, value: redis() ? 1 : 0 }] : [],
  );
  const poolConnections = scraped('gatehouse_db_pool_connections', "PostgreSQL: this process's pool connections by state (in_use, idle), and its size (max)", () => {
    const stats = pool?.();
    if (!stats) return [];
    return [
      { labels: { state: 'in_use' }, value: stats.total - stats.idle },
      { labels: { state: 'idle' }, value: stats.idle },
      { labels: { state: 'max' }, value: stats.max },
    ];
  });
  const poolWaiting = scraped('gatehouse_db_pool_waiting', 'PostgreSQL: queries waiting for a pool connection in this process', () => {
    const stats = pool?.();
    return stats ? [{ labels: {}, value: stats.waiting }] : [];
  });
  const jobLastRun = new Gauge({ name: 'gatehouse_job_last_run_timestamp_seconds', help: 'When the background job last completed a pass on this node (Unix time)', labelNames: ['job'] as const, registers: [] });
  const jobDuration = new Gauge({ name: 'gatehouse_job_last_duration_seconds', help: "The background job's last completed pass on this node, how long it took", labelNames: ['job'] as const, registers: [] });
  const jobRows = new Counter({ name: 'gatehouse_job_rows_total', help: 'Rows (or blobs, charges, uploads) the background job handled on this node', labelNames: ['job'] as const, registers: [] });
  const jobFailures = new Counter({ name: 'gatehouse_job_failures_total', help: 'Passes of the background job that failed on this node', labelNames: ['job'] as const, registers: [] });

  return {
    rateLimited,
    blobFailures,
    watch(sources) {
      pool = sources.pool ?? pool;
      redis = sources.redis ?? redis;
    },
    async job(job, run, rows) {
      const started = performance.now();
      try {
        const result = await run();
        jobLastRun.set({ job }, Date.now() / 1000);
        jobDuration.set({ job }, (performance.now() - started) / 1000);
        jobRows.inc({ job }, rows(result));
        return result;
      } catch (error) {
        jobFailures.inc({ job });
        throw error;
      }
    },
    all: [rateLimited, blobFailures, redisUp, poolConnections, poolWaiting, jobLastRun, jobDuration, jobRows, jobFailures],
  };
}
