import type { Clock } from '../clock.js';
import type { RateRule } from '../config/rate-limits.js';
import type { WindowStore } from './window-store.js';

interface Log {
  /** Admission times (ms), oldest first; never more than the rule's limit. */
  hits: number[];
  windowMs: number;
}

/** How often (in clock time) idle keys are swept out, so memory follows recent traffic only. */
const SWEEP_EVERY_MS = 60_000;

/**
 * One node's exact sliding-window log: per key, the times of the requests admitted in the window.
 * Memory is bounded: a key holds at most `limit` times, and a key whose window has emptied is
 * deleted by the sweep that runs (inside `hit`, no timer) once a minute of clock time.
 */
export class MemoryWindowStore implements WindowStore {
  private readonly logs = new Map<string, Log>();
  private lastSweep: number;

  constructor(private readonly clock: Clock) {
    this.lastSweep = clock.now().getTime();
  }

  async hit(key: string, rule: RateRule): Promise<number> {
    return this.hitNow(key, rule);
  }

  /** Synchronous core: the Redis store falls back to it without an extra await between check and add. */
  hitNow(key: string, rule: RateRule): number {
    const now = this.clock.now().getTime();
    const windowMs = rule.windowSeconds * 1000;
    if (now - this.lastSweep >= SWEEP_EVERY_MS) this.sweep(now);
    let log = this.logs.get(key);
    if (!log) {
      log = { hits: [], windowMs };
      this.logs.set(key, log);
    }
    log.windowMs = windowMs;
    // A request made at t stays in the window while now - t < window.
    while (log.hits.length > 0 && log.hits[0] <= now - windowMs) log.hits.shift();
    if (log.hits.length < rule.limit) {
      log.hits.push(now);
      return 0;
    }
    if (log.hits.length === 0) return windowMs; // limit 0: the window never opens
    return Math.max(1, log.hits[0] + windowMs - now);
  }

  /** Number of keys held (for tests and metrics). */
  get size(): number {
    return this.logs.size;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, log] of this.logs) {
      const newest = log.hits[log.hits.length - 1];
      if (newest === undefined || newest <= now - log.windowMs) this.logs.delete(key);
    }
  }

  async close(): Promise<void> {
    this.logs.clear();
  }
}
