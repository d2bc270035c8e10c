import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { api, createApp, createTenant, type JsonResponse, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/rate-limits.md, over HTTP. In the PostgreSQL run the harness sets
// REDIS_URL, so the same tests then exercise the Redis store. Every server gets fresh apps (and app ids
// are part of every key), so runs sharing one Redis never meet.

let direct: TestServer; // clients reach it directly: X-Forwarded-For is not trusted
let proxied: TestServer; // TRUST_PROXY=true: the client IP comes from X-Forwarded-For
// One app per test where windows must start empty (app ids are part of every key).
const apps: Record<string, TestApp> = {};

beforeAll(async () => {
  [direct, proxied] = await Promise.all([
    startServer({ RATE_LIMITS: 'signin_ip=3/60,challenge_ip=3/60,refresh_ip=1/1' }),
    startServer({
      TRUST_PROXY: 'true',
      RATE_LIMITS: 'signin_ip=4/60,signin_email=2/60,signin_email_any=3/300,signup_email=1/300',
    }),
  ]);
  // One CLI at a time per server (SQLite has one writer); the two servers in parallel.
  const createApps = async (server: TestServer, names: string[], args?: string[]) => {
    const tenantId = await createTenant(server);
    for (const name of names) apps[name] = await createApp(server, { tenantId, args });
  };
  await Promise.all([
    createApps(direct, ['signins', 'challenges', 'refresh', 'noProxy', 'appA', 'appB', 'redis']),
    createApps(proxied, ['proxy', 'perEmail']).then(() => createApps(proxied, ['signup'], ['--hashcash', 'off'])),
  ]);
}, 300_000); // a dozen CLI runs: slow on a busy machine
afterAll(async () => {
  await Promise.all([direct?.stop(), proxied?.stop()]);
});

/** A random client address, as a proxy would put it in X-Forwarded-For. */
const randomIp = () => `10.${[...randomBytes(3)].join('.')}`;

function signIn(server: TestServer, app: TestApp, email: string, ip?: string): Promise<JsonResponse> {
  return api(server, 'POST', '/v1/signins', {
    publishableKey: app.publishable_key,
    body: { email, password: 'not the password' },
    headers: ip ? { 'x-forwarded-for': ip } : {},
  });
}

function expectRateLimited(res: JsonResponse, maxSeconds: number): void {
  expect(res.status).toBe(429);
  expect(Object.keys(res.body)).toEqual(['detail', 'code']);
  expect(res.body.detail).toMatch(/too many requests/);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
}

describe('8 limits: per IP (signin_ip, challenge_ip, refresh_ip)', () => {
  it('8 signins: after N sign-ins from one IP the next is 429 with Retry-After and {detail}; failed (401) ones count', async () => {
    const app = apps.signins;
    for (let i = 0; i < 3; i++) {
      const res = await signIn(direct, app, uniqueEmail('nobody'));
      expect(res.status).toBe(401);
    }
    expectRateLimited(await signIn(direct, app, uniqueEmail('nobody')), 60);
  });

  it('8 challenges: after N challenges from one IP the next is 429 with Retry-After', async () => {
    const app = apps.challenges;
    for (let i = 0; i < 3; i++) {
      expect((await api(direct, 'POST', '/v1/challenges', { publishableKey: app.publishable_key })).status).toBe(200);
    }
    expectRateLimited(await api(direct, 'POST', '/v1/challenges', { publishableKey: app.publishable_key }), 60);
  });

  it('8 sliding window: a client that waits Retry-After seconds gets back in (refresh_ip 1/1 s)', async () => {
    const app = apps.refresh;
    const refresh = () => api(direct, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body: { refresh_token: 'rt_not-a-real-token' } });
    expect((await refresh()).status).toBe(401);
    const refused = await refresh();
    expectRateLimited(refused, 1);
    await new Promise((r) => setTimeout(r, Number(refused.headers.get('retry-after')) * 1000 + 50));
    expect((await refresh()).status).toBe(401);
  });

  it('8 without TRUST_PROXY, X-Forwarded-For is ignored: every request counts for the socket IP', async () => {
    const app = apps.noProxy;
    for (let i = 0; i < 3; i++) expect((await signIn(direct, app, uniqueEmail('nobody'), randomIp())).status).toBe(401);
    expectRateLimited(await signIn(direct, app, uniqueEmail('nobody'), randomIp()), 60);
  });

  it('8 with TRUST_PROXY=true, the client IP comes from X-Forwarded-For', async () => {
    const app = apps.proxy;
    const ip = randomIp();
    for (let i = 0; i < 4; i++) expect((await signIn(proxied, app, uniqueEmail('nobody'), ip)).status).toBe(401);
    expectRateLimited(await signIn(proxied, app, uniqueEmail('nobody'), ip), 60);
    expect((await signIn(proxied, app, uniqueEmail('nobody'), randomIp())).status).toBe(401);
  });

  it('8 different apps do not share windows', async () => {
    const [first, second] = [apps.appA, apps.appB];
    for (let i = 0; i < 3; i++) await signIn(direct, first, uniqueEmail('nobody'));
    for (let i = 0; i < 3; i++) await api(direct, 'POST', '/v1/challenges', { publishableKey: first.publishable_key });
    expectRateLimited(await signIn(direct, first, uniqueEmail('nobody')), 60);
    expectRateLimited(await api(direct, 'POST', '/v1/challenges', { publishableKey: first.publishable_key }), 60);
    expect((await signIn(direct, second, uniqueEmail('nobody'))).status).toBe(401);
    expect((await api(direct, 'POST', '/v1/challenges', { publishableKey: second.publishable_key })).status).toBe(200);
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('8 with REDIS_URL the windows live in Redis (gh:rl:{name}:{key})', async () => {
    const app = apps.redis;
    for (let i = 0; i < 2; i++) await signIn(direct, app, uniqueEmail('nobody'));
    const { Redis } = await import('ioredis');
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    try {
      expect(await redis.zcard(`gh:rl:signin_ip:${app.app_id}:127.0.0.1`)).toBe(2);
    } finally {
      redis.disconnect();
    }
  });
});

describe('8 limits: per email (signup_email, signin_email, signin_email_any)', () => {
  it('8 signups: a second sign-up for the same email within 300 s is 429, even from another IP', async () => {
    const app = apps.signup;
    const signUp = (email: string, ip: string) =>
      api(proxied, 'POST', '/v1/signups', { publishableKey: app.publishable_key, body: { email }, headers: { 'x-forwarded-for': ip } });
    const email = uniqueEmail('signup');
    expect((await signUp(email, randomIp())).status).toBe(200);
    expectRateLimited(await signUp(email, randomIp()), 300);
    expectRateLimited(await signUp(email.toUpperCase(), randomIp()), 300);
    expect((await signUp(uniqueEmail('signup'), randomIp())).status).toBe(200);
  });

  it('8 signins: per (email, IP) first, then the looser per-email cap across IPs', async () => {
    const app = apps.perEmail;
    const email = uniqueEmail('target');
    const [first, second, third] = [randomIp(), randomIp(), randomIp()];
    // signin_email 2/60 per (email, IP): the third try from one IP is refused...
    expect((await signIn(proxied, app, email, first)).status).toBe(401);
    expect((await signIn(proxied, app, email, first)).status).toBe(401);
    expectRateLimited(await signIn(proxied, app, email, first), 60);
    // ...without locking the email out elsewhere, until signin_email_any (3/300 per email) is full.
    expect((await signIn(proxied, app, email, second)).status).toBe(401);
    expectRateLimited(await signIn(proxied, app, email, third), 300);
    // Other emails, even from the first IP, have windows of their own.
    expect((await signIn(proxied, app, uniqueEmail('other'), first)).status).toBe(401);
  });
});
