import { createHmac, randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { RateLimitName, RateRule } from '../config/rate-limits.js';
import { ApiError } from '../errors.js';
import { createLogger, type Logger } from '../observability/logger.js';
import type { RateLimiter } from './limiter.js';
import { MemoryWindowStore } from './memory-store.js';
import { RedisWindowStore } from './redis-store.js';
import type { WindowStore } from './window-store.js';

/** The 429 of a full window; `Retry-After` is whole seconds, rounded up, at least 1. */
export function rateLimited(waitMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new ApiError(429, 'rate_limited', `too many requests; retry in ${seconds} second${seconds === 1 ? '' : 's'}`, {
    headers: { 'retry-after': String(seconds) },
  });
}

/**
 * The limiter of config.rateLimits: none with RATE_LIMITS=off, Redis when REDIS_URL is set (shared by
 * every node), else this process's memory. `clock` drives the memory store (Redis keeps its own time).
 */
/**
 * The key a window is stored under: a key that holds an email address (`{app}:{email}:{ip}`) keeps its app
 * id in clear and the rest as an HMAC, so Redis never holds an address (docs/privacy.md) while
 * every node, sharing MASTER_KEY, still counts the same address in the same window.
 */
export function storedKey(secret: Buffer, key: string): string {
  if (!key.includes('@')) return key;
  const colon = key.indexOf(':');
  const head = colon > 0 && !key.slice(0, colon).includes('@') ? key.slice(0, colon + 1) : '';
  return `${head}h_${createHmac('sha256', secret).update(key.slice(head.length)).digest('hex').slice(0, 32)}`;
}

export function createLimiter(config: Config, options: { clock?: Clock; log?: Logger; keySecret?: Buffer; refused?: (name: RateLimitName) => void } = {}): RateLimiter {
  const rules = config.rateLimits;
  if (rules === 'off') return { consume: async () => {}, close: async () => {} };
  const clock = options.clock ?? systemClock;
  // Without a key from MASTER_KEY (unit tests), one of this process: exact within it, as memory windows are.
  const keySecret = options.keySecret ?? randomBytes(32);
  const redis = config.redisUrl ? new RedisWindowStore(config.redisUrl, clock, options.log ?? createLogger(config.logLevel)) : undefined;
  const store: WindowStore = redis ?? new MemoryWindowStore(clock);
  const refused = options.refused;
  return {
    async consume(name: RateLimitName, key: string) {
      const rule: RateRule | undefined = rules[name];
      if (!rule) throw new Error(`unknown rate limit ${name}`);
      const waitMs = await store.hit(`gh:rl:${name}:${storedKey(keySecret, key)}`, rule);
      if (waitMs > 0) {
        refused?.(name);
        throw rateLimited(waitMs);
      }
    },
    close: () => store.close(),
    redisAvailable: redis && (() => redis.available),
  };
}
