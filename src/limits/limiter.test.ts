import { randomBytes } from 'node:crypto';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.js';
import { parseRateLimits, type RateLimitName } from '../config/rate-limits.js';
import { ApiError } from '../errors.js';
import { createLogger } from '../observability/logger.js';
import { createLimiter, storedKey } from './index.js';
import type { RateLimiter } from './limiter.js';
import { MemoryWindowStore } from './memory-store.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A clock the test moves by hand: windows slide without sleeping. */
function manualClock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

/** Resolves to undefined when admitted, or the 429 ApiError when refused. */
async function attempt(limiter: RateLimiter, name: RateLimitName, key: string): Promise<ApiError | undefined> {
  try {
    await limiter.consume(name, key);
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

async function admittedCount(limiter: RateLimiter, name: RateLimitName, key: string, tries: number): Promise<number> {
  let admitted = 0;
  for (let i = 0; i < tries; i++) if (!(await attempt(limiter, name, key))) admitted++;
  return admitted;
}

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

// CI always has Redis (a missing one is a failure there); a laptop without it skips the Redis part.
const ci = process.env.CI === 'true' || process.env.CI === '1';
const redisUp = ci || (await reachable(REDIS_URL));

describe('8 limits: the in-memory sliding window', () => {
  it('admits exactly N requests per window, then 429 rate_limited with Retry-After', async () => {
    const clock = manualClock();
    const limiter = createLimiter(loadConfig({ RATE_LIMITS: 'signin_ip=3/60' }), { clock });
    expect(await admittedCount(limiter, 'signin_ip', 'app_1:10.0.0.1', 3)).toBe(3);
    const refused = await attempt(limiter, 'signin_ip', 'app_1:10.0.0.1');
    expect(refused?.status).toBe(429);
    expect(refused?.code).toBe('rate_limited');
    expect(refused?.headers['retry-after']).toBe('60');
    expect(refused?.detail).toBe('too many requests; retry in 60 seconds');
  });

  it('uses the defaults of docs/rate-limits.md when RATE_LIMITS is unset (signup_email 1/300)', async () => {
    const clock = manualClock();
    const limiter = createLimiter(loadConfig({}), { clock });
    expect(await admittedCount(limiter, 'signup_email', 'app_1:a@example.com', 5)).toBe(1);
    expect(await admittedCount(limiter, 'signup_ip', 'app_1:10.0.0.1', 15)).toBe(10);
    clock.advance(299_999);
    expect(await attempt(limiter, 'signup_email', 'app_1:a@example.com')).toBeDefined();
    clock.advance(1);
    expect(await attempt(limiter, 'signup_email', 'app_1:a@example.com')).toBeUndefined();
  });

  it('slides: a request leaves the window exactly `window` after it was made (no fixed buckets)', async () => {
    const clock = manualClock();
    const limiter = createLimiter(loadConfig({ RATE_LIMITS: 'challenge_ip=3/10' }), { clock });
    const key = 'app_1:10.0.0.2';
    await limiter.consume('challenge_ip', key); // t=0
    clock.advance(4_000);
    await limiter.consume('challenge_ip', key); // t=4
    clock.advance(4_000);
    await limiter.consume('challenge_ip', key); // t=8
    clock.advance(1_500);
    expect((await attempt(limiter, 'challenge_ip', key))?.headers['retry-after']).toBe('1'); // t=9.5: 0.5 s left, rounded up
    clock.advance(500);
    expect(await attempt(limiter, 'challenge_ip', key)).toBeUndefined(); // t=10: the t=0 request left
    // A fixed 10-second bucket would now admit two more; the sliding window holds t=4, t=8, t=10.
    const refused = await attempt(limiter, 'challenge_ip', key);
    expect(refused?.headers['retry-after']).toBe('4');
    expect(refused?.detail).toBe('too many requests; retry in 4 seconds');
  });

  it('a refused request is not counted: a client that waits Retry-After gets back in', async () => {
    const clock = manualClock();
    const limiter = createLimiter(loadConfig({ RATE_LIMITS: 'signin_email=2/60' }), { clock });
    const key = 'app_1:b@example.com:10.0.0.3';
    expect(await admittedCount(limiter, 'signin_email', key, 2)).toBe(2);
    for (let i = 0; i < 20; i++) {
      clock.advance(1_000);
      expect(await attempt(limiter, 'signin_email', key)).toBeDefined();
    }
    const refused = await attempt(limiter, 'signin_email', key);
    clock.advance(Number(refused!.headers['retry-after']) * 1000);
    expect(await attempt(limiter, 'signin_email', key)).toBeUndefined();
  });

  it('windows are per name and per key', async () => {
    const limiter = createLimiter(loadConfig({ RATE_LIMITS: 'signin_ip=1/60,signup_ip=1/60' }), { clock: manualClock() });
    expect(await attempt(limiter, 'signin_ip', 'app_1:10.0.0.4')).toBeUndefined();
    expect(await attempt(limiter, 'signin_ip', 'app_1:10.0.0.4')).toBeDefined();
    expect(await attempt(limiter, 'signin_ip', 'app_2:10.0.0.4')).toBeUndefined();
    expect(await attempt(limiter, 'signin_ip', 'app_1:10.0.0.5')).toBeUndefined();
    expect(await attempt(limiter, 'signup_ip', 'app_1:10.0.0.4')).toBeUndefined();
  });

  it('a limit of 0 refuses everything, with a Retry-After of the window', async () => {
    const limiter = createLimiter(loadConfig({ RATE_LIMITS: 'refresh_ip=0/30' }), { clock: manualClock() });
    expect((await attempt(limiter, 'refresh_ip', 'app_1:10.0.0.6'))?.headers['retry-after']).toBe('30');
  });

  it('memory stays bounded: keys whose window emptied are swept', async () => {
    const clock = manualClock();
    const store = new MemoryWindowStore(clock);
    for (let i = 0; i < 1000; i++) await store.hit(`k${i}`, { limit: 5, windowSeconds: 60 });
    expect(store.size).toBe(1000);
    clock.advance(60_000);
    await store.hit('fresh', { limit: 5, windowSeconds: 60 });
    expect(store.size).toBe(1);
  });
});

describe('10 limits: row_write_user', () => {
  it('35.3 a session user may write 300 rows per 60 s by default; RATE_LIMITS changes it', () => {
    expect(parseRateLimits(undefined)).toMatchObject({ row_write_user: { limit: 300, windowSeconds: 60 } });
    expect(parseRateLimits('row_write_user=50/10')).toMatchObject({ row_write_user: { limit: 50, windowSeconds: 10 } });
  });
});

describe('8 limits: RATE_LIMITS=off', () => {
  it('never refuses', async () => {
    const limiter = createLimiter(loadConfig({ RATE_LIMITS: 'off', REDIS_URL: REDIS_URL }));
    expect(await admittedCount(limiter, 'signup_email', 'app_1:c@example.com', 50)).toBe(50);
    await limiter.close();
  });
});

describe.skipIf(!redisUp)('8 limits: the Redis sliding window (REDIS_URL)', () => {
  const run = randomBytes(6).toString('hex'); // keys of this run never meet another run's
  const limiters: RateLimiter[] = [];
  const redisLimiter = (rateLimits: string) => {
    const limiter = createLimiter(loadConfig({ RATE_LIMITS: rateLimits, REDIS_URL }), { log: createLogger('silent') });
    limiters.push(limiter);
    return limiter;
  };
  afterAll(async () => {
    await Promise.all(limiters.map((l) => l.close()));
  });

  it('admits exactly N, then 429 with Retry-After = the window', async () => {
    const limiter = redisLimiter('signin_ip=3/60');
    expect(await admittedCount(limiter, 'signin_ip', `${run}:exact`, 3)).toBe(3);
    const refused = await attempt(limiter, 'signin_ip', `${run}:exact`);
    expect(refused?.status).toBe(429);
    expect(refused?.headers['retry-after']).toBe('60');
  });

  it('two nodes sharing one Redis share the counts', async () => {
    const nodeA = redisLimiter('signup_ip=3/60');
    const nodeB = redisLimiter('signup_ip=3/60');
    const key = `${run}:shared`;
    expect(await attempt(nodeA, 'signup_ip', key)).toBeUndefined();
    expect(await attempt(nodeB, 'signup_ip', key)).toBeUndefined();
    expect(await attempt(nodeA, 'signup_ip', key)).toBeUndefined();
    expect(await attempt(nodeB, 'signup_ip', key)).toBeDefined();
    expect(await attempt(nodeA, 'signup_ip', key)).toBeDefined();
  });

  it('concurrent requests never overshoot the limit (one atomic script per request)', async () => {
    const nodeA = redisLimiter('refresh_ip=10/60');
    const nodeB = redisLimiter('refresh_ip=10/60');
    const key = `${run}:race`;
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => attempt(i % 2 ? nodeA : nodeB, 'refresh_ip', key)));
    expect(results.filter((r) => r === undefined)).toHaveLength(10);
  });

  it('slides, and refused requests are not counted', async () => {
    const limiter = redisLimiter('challenge_ip=2/1');
    const key = `${run}:slide`;
    expect(await admittedCount(limiter, 'challenge_ip', key, 2)).toBe(2);
    await new Promise((r) => setTimeout(r, 600));
    expect((await attempt(limiter, 'challenge_ip', key))?.headers['retry-after']).toBe('1');
    await new Promise((r) => setTimeout(r, 500));
    expect(await admittedCount(limiter, 'challenge_ip', key, 5)).toBe(2);
  });

  it('stores the log in gh:rl:{name}:{key} with an expiry of the window, an email only as its HMAC', async () => {
    const { Redis } = await import('ioredis');
    const client = new Redis(REDIS_URL);
    try {
      const secret = Buffer.alloc(32, 7);
      const limiter = createLimiter(loadConfig({ RATE_LIMITS: 'verify_code_email=10/300', REDIS_URL }), { log: createLogger('silent'), keySecret: secret });
      await limiter.consume('verify_code_email', `${run}:d@example.com:10.0.0.7`);
      await limiter.close();
      const key = `gh:rl:verify_code_email:${storedKey(secret, `${run}:d@example.com:10.0.0.7`)}`;
      expect(key).toMatch(new RegExp(`^gh:rl:verify_code_email:${run}:h_[0-9a-f]{32}$`));
      expect(await client.keys(`gh:rl:*d@example.com*`)).toEqual([]);
      expect(await client.zcard(key)).toBe(1);
      const ttl = await client.pttl(key);
      expect(ttl).toBeGreaterThan(299_000);
      expect(ttl).toBeLessThanOrEqual(300_000);
    } finally {
      client.disconnect();
    }
  });
});

describe('8 limits: Redis unreachable', () => {
  it('neither hangs nor refuses: counts in memory on this node and logs the outage', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const limiter = createLimiter(loadConfig({ RATE_LIMITS: 'signin_ip=2/60', REDIS_URL: 'redis://127.0.0.1:1' }), {
      log: createLogger('info', sink),
    });
    const started = Date.now();
    expect(await admittedCount(limiter, 'signin_ip', 'app_1:10.0.0.8', 3)).toBe(2);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(lines.join('')).toMatch(/Redis is unreachable/);
    await limiter.close();
  });
});

/** A TCP relay to Redis that the test can cut and restore, as a network outage would. */
async function redisRelay(target: string) {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let listenPort = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = createConnection({ host: hostname, port: Number(port || 6379) });
        for (const s of [client, upstream]) (sockets.add(s), s.on('error', () => s.destroy()), s.on('close', () => sockets.delete(s)));
        client.pipe(upstream).pipe(client);
      });
      server.listen(listenPort, '127.0.0.1', () => {
        listenPort = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  await open();
  return {
    url: () => `redis://127.0.0.1:${listenPort}`,
    cut: () => new Promise<void>((resolve) => (server!.close(() => resolve()), sockets.forEach((s) => s.destroy()))),
    restore: open,
  };
}

describe.skipIf(!redisUp)('8 limits: Redis outage and recovery', () => {
  it('counts in memory while Redis is cut off, and in Redis again once it answers', async () => {
    const relay = await redisRelay(REDIS_URL);
    const limiter = createLimiter(loadConfig({ RATE_LIMITS: 'signin_ip=100/60', REDIS_URL: relay.url() }), { log: createLogger('silent') });
    const { Redis } = await import('ioredis');
    const direct = new Redis(REDIS_URL);
    const key = `${randomBytes(6).toString('hex')}:outage`;
    const stored = () => direct.zcard(`gh:rl:signin_ip:${key}`);
    try {
      await limiter.consume('signin_ip', key);
      expect(await stored()).toBe(1);
      await relay.cut();
      const started = Date.now();
      expect(await admittedCount(limiter, 'signin_ip', key, 3)).toBe(3);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await stored()).toBe(1);
      await relay.restore();
      const deadline = Date.now() + 10_000;
      while ((await stored()) === 1 && Date.now() < deadline) {
        await limiter.consume('signin_ip', key);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(await stored()).toBe(2);
    } finally {
      await limiter.close();
      direct.disconnect();
    }
  });
});
