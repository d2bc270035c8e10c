import type { RateLimitName } from '../config/rate-limits.js';

/**
 * Sliding-window rate limits: `consume(name, key)` counts one request in the named window for `key`
 * (an IP, an email, an email+IP, a bot id) and throws ApiError 429 with `Retry-After` when the window
 * is full. Every admitted request counts, whatever its outcome; a request refused with 429 is not
 * added, so a client that waits `Retry-After` seconds gets back in. With RATE_LIMITS=off it never throws.
 */
export interface RateLimiter {
  consume(name: RateLimitName, key: string): Promise<void>;
  close(): Promise<void>;
  /** With REDIS_URL: whether Redis answers now (false while windows count in this node's memory). */
  redisAvailable?(): boolean;
}
