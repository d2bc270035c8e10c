import type { Config } from '../config/index.js';
import type { RateLimiter } from './limiter.js';

// PLACEHOLDER until the limiter lands (memory and Redis stores): counts nothing.
export function createLimiter(_config: Config): RateLimiter {
  return { consume: async () => {}, close: async () => {} };
}
