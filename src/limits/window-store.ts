import type { RateRule } from '../config/rate-limits.js';

/**
 * Where sliding-window logs live. `hit` admits and records one request when the window of `key`
 * holds fewer than `rule.limit` requests and answers 0; when it is full it records nothing and answers
 * the milliseconds until the oldest request leaves the window (at least 1).
 */
export interface WindowStore {
  hit(key: string, rule: RateRule): Promise<number>;
  close(): Promise<void>;
}
