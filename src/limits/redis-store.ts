import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { RateRule } from '../config/rate-limits.js';
import type { Logger } from '../observability/logger.js';
import { MemoryWindowStore } from './memory-store.js';
import type { WindowStore } from './window-store.js';

/**
 * One atomic step of a sliding-window log kept in a sorted set (score = admission time in ms).
 * Time comes from Redis itself, so every node agrees on it whatever their clocks say.
 * KEYS[1] the window; ARGV: limit, window (ms), a member suffix unique to this request.
 * Returns 0 when admitted, else the ms until the oldest entry leaves the window.
 */
const SLIDING_WINDOW_LUA = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count < limit then
  redis.call('ZADD', key, now, now .. ':' .. ARGV[3])
  redis.call('PEXPIRE', key, window)
  return 0
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
if oldest[2] == nil then return window end
local wait = tonumber(oldest[2]) + window - now
if wait < 1 then wait = 1 end
return wait
`;

/** ioredis is loaded only by a process that uses Redis (about 8 MB of memory otherwise spent for nothing). */
const loadRedis = (): typeof Redis => (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;

type WithScript = Redis & {
  slidingWindow(key: string, limit: number, windowMs: number, member: string): Promise<number>;
};

/** How long requests wait for the first connection after start-up before counting in memory. */
const FIRST_CONNECT_WAIT_MS = 1_000;
/** After a failed command, requests count in memory for this long instead of each paying a timeout. */
const SKIP_AFTER_FAILURE_MS = 2_000;
/** While Redis is down, the error is logged at most this often. */
const LOG_FAILURE_EVERY_MS = 30_000;

/**
 * Sliding windows shared by every node through Redis (key `gh:rl:{name}:{key}`). When Redis does not
 * answer, requests are neither refused nor left hanging: they count in this node's memory (per-node
 * limits) until Redis answers again, and the outage is logged. See docs/rate-limits.md for why.
 */
export class RedisWindowStore implements WindowStore {
  private readonly client: WithScript;
  private readonly fallback: MemoryWindowStore;
  private readonly nonce = randomBytes(6).toString('hex');
  private sequence = 0;
  private readonly firstConnection: Promise<void>;
  private failing = false;
  private retryAt = 0;
  private lastFailureLog = 0;

  constructor(url: string, clock: Clock, private readonly log: Logger) {
    this.fallback = new MemoryWindowStore(clock);
    this.client = new (loadRedis())(url, {
      // A request must never wait on a dead Redis: fail fast, count in memory, reconnect in the background.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 500,
      connectTimeout: 2_000,
    }) as WithScript;
    this.client.defineCommand('slidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
    this.firstConnection = new Promise((resolve) => {
      const timer = setTimeout(resolve, FIRST_CONNECT_WAIT_MS);
      timer.unref();
      const settle = () => (clearTimeout(timer), resolve());
      // Connected, or refused outright: either way requests stop waiting.
      this.client.once('ready', settle);
      this.client.once('error', settle);
    });
    this.client.on('ready', () => {
      if (this.failing) this.recovered();
    });
    // Without a listener ioredis prints every connection error; they are logged (throttled) here instead.
    this.client.on('error', (error: Error) => this.noteFailure(error));
  }

  /** Redis answers (the connection is ready and the last command did not fail). */
  get available(): boolean {
    return this.client.status === 'ready' && !this.failing;
  }

  async hit(key: string, rule: RateRule): Promise<number> {
    await this.firstConnection;
    if (this.failing && Date.now() < this.retryAt) return this.fallback.hitNow(key, rule);
    try {
      const wait = await this.client.slidingWindow(key, rule.limit, rule.windowSeconds * 1000, `${this.nonce}:${this.sequence++}`);
      if (this.failing) this.recovered();
      return Number(wait);
    } catch (error) {
      this.noteFailure(error as Error);
      return this.fallback.hitNow(key, rule);
    }
  }

  private noteFailure(error: Error): void {
    const now = Date.now();
    if (!this.failing || now - this.lastFailureLog >= LOG_FAILURE_EVERY_MS) {
      this.log.error({ err: error }, "rate limits: Redis is unreachable; counting in this node's memory until it answers");
      this.lastFailureLog = now;
    }
    this.failing = true;
    this.retryAt = now + SKIP_AFTER_FAILURE_MS;
  }

  private recovered(): void {
    this.failing = false;
    this.log.warn('rate limits: Redis answers again; counting in Redis');
  }

  async close(): Promise<void> {
    await this.fallback.close();
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // fall through: drop the connection
      }
    }
    this.client.disconnect();
  }
}
