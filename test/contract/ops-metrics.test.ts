import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { createBucket, getObject, putObject, random, startObjectServer, type ObjectEnv } from '../helpers/objects.js';
import { startServer, type TestServer } from '../helpers/server.js';

// The metrics an operator alerts on, scraped from a real server's /metrics: 429s by limit name (never the
// address in the window's key), blob-store failures by operation, each background job's last run, duration
// and rows, Redis availability (a Redis that answers on the PostgreSQL pass, one that never does on both),
// and on PostgreSQL the pool's connections and waiters.

let env: ObjectEnv;
let server: TestServer;
let app: TestApp;
let deadRedis: TestServer;

const scrape = async (target: TestServer) => {
  const res = await api(target, 'GET', '/metrics');
  expect(res.status).toBe(200);
  return res.body as unknown as string;
};
const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

beforeAll(async () => {
  [env, deadRedis] = await Promise.all([
    startObjectServer('file', { RATE_LIMITS: 'signin_ip=1/60', UPLOAD_STALE_SECONDS: '3' }),
    // Nothing listens on port 1: the limiter counts in memory and says so.
    startServer({ REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMITS: 'signin_ip=100/60' }),
  ]);
  server = env.server;
  app = await createApp(server);
});
afterAll(async () => {
  await Promise.all([env?.stop(), deadRedis?.stop()]);
});

describe('operations metrics on /metrics', () => {
  it('429s are counted by limit name, and no address from the window key is a label', async () => {
    const email = 'metrics.person@example.com';
    const signIn = () => api(server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password: 'not the password' } });
    expect((await signIn()).status).toBe(401);
    expect((await signIn()).status).toBe(429);
    const text = await scrape(server);
    expect(sample(text, 'gatehouse_rate_limited_total{limit="signin_ip"}')).toBe(1);
    expect(text).not.toContain('metrics.person');
    expect(text).not.toContain('example.com');
  });

  it('a blob-store failure is counted by operation (a row whose blob was removed behind the service)', async () => {
    const before = sample(await scrape(server), 'gatehouse_blob_store_failures_total{operation="get"}') ?? 0;
    const bucket = await createBucket(server, app);
    expect((await putObject(server, app, bucket.bucket_id, 'a.bin', random(64))).status).toBe(200);
    await env.removeBlobs(app.app_id);
    expect((await getObject(server, app, bucket.bucket_id, 'a.bin')).status).toBeGreaterThanOrEqual(400);
    expect(sample(await scrape(server), 'gatehouse_blob_store_failures_total{operation="get"}')).toBe(before + 1);
  });

  it('each background job reports its last run, its duration and its rows (upload liveness every second here, the purge a second after start)', async () => {
    await expect.poll(async () => sample(await scrape(server), 'gatehouse_job_last_run_timestamp_seconds{job="upload_liveness"}'), { timeout: 20_000, interval: 250 }).toBeGreaterThan(0);
    await expect.poll(async () => sample(await scrape(server), 'gatehouse_job_last_run_timestamp_seconds{job="purge"}'), { timeout: 20_000, interval: 250 }).toBeGreaterThan(0);
    const text = await scrape(server);
    const lastRun = sample(text, 'gatehouse_job_last_run_timestamp_seconds{job="upload_liveness"}')!;
    expect(Math.abs(lastRun - Date.now() / 1000)).toBeLessThan(120);
    expect(sample(text, 'gatehouse_job_last_duration_seconds{job="upload_liveness"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'gatehouse_job_rows_total{job="upload_liveness"}')).toBe(0);
    expect(sample(text, 'gatehouse_job_failures_total{job="upload_liveness"}') ?? 0).toBe(0);
  });

  it(`Redis availability: 0 while Redis never answers${TEST_DB === 'postgres' ? ', 1 where it does' : ''}; absent without REDIS_URL`, async () => {
    expect(sample(await scrape(deadRedis), 'gatehouse_redis_up')).toBe(0);
    // The sign-in is still limited, in this node's memory.
    expect((await api(deadRedis, 'POST', '/v1/signins', { publishableKey: (await createApp(deadRedis)).publishable_key, body: { email: 'x@example.com', password: 'nope' } })).status).toBe(401);
    const here = sample(await scrape(server), 'gatehouse_redis_up');
    if (server.env.REDIS_URL) expect(here).toBe(1);
    else expect(here).toBeUndefined();
  });

  it(TEST_DB === 'postgres' ? "the PostgreSQL pool: connections in use and idle, its size, and queries waiting" : 'SQLite has no pool: no pool series', async () => {
    const text = await scrape(server);
    if (TEST_DB !== 'postgres') return expect(text).not.toMatch(/^gatehouse_db_pool/m);
    expect(sample(text, 'gatehouse_db_pool_connections{state="max"}')).toBe(20);
    // The scrape's own request needs no connection: in use is what other work holds, at least 0.
    expect(sample(text, 'gatehouse_db_pool_connections{state="in_use"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'gatehouse_db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'gatehouse_db_pool_waiting')).toBe(0);
  });
});
