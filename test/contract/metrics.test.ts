import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/fixtures.js';
import { TEST_DB } from '../helpers/db.js';
import { startServer, type TestServer } from '../helpers/server.js';

const ADMIN_TOKEN = 'metrics-test-admin-token-0123456789abcdef';
let open: TestServer;
let guarded: TestServer;

beforeAll(async () => {
  // `open` trusts a proxy and has no ADMIN_TOKEN: the set-up of a same-host reverse proxy (issue 35, finding 4).
  [open, guarded] = await Promise.all([startServer({ TRUST_PROXY: 'loopback' }), startServer({ ADMIN_TOKEN, TRUST_PROXY: 'loopback' })]);
});
afterAll(async () => {
  await Promise.all([open?.stop(), guarded?.stop()]);
});

describe('GET /metrics (Prometheus)', () => {
  it('counts requests by route template and status, for loopback clients without ADMIN_TOKEN', async () => {
    await api(open, 'GET', '/v1/health');
    await api(open, 'GET', '/.well-known/jwks.json?app_id=app_missing');
    const res = await api(open, 'GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    expect(res.body).toMatch(/gatehouse_http_requests_total\{method="GET",route="\/v1\/health",status="200"\} [1-9]/);
    expect(res.body).toMatch(/route="\/.well-known\/jwks.json",status="404"/);
    expect(res.body).not.toContain('app_missing');
    expect(res.body).toMatch(/process_cpu_user_seconds_total/);
  });

  it(`counts the write-ahead log pages a SQLite server checkpoints off the event loop (${TEST_DB === 'sqlite' ? 'the migrations at start-up wrote some' : 'none on PostgreSQL'})`, async () => {
    const pages = async () => Number((await api(open, 'GET', '/metrics')).body.match(/^gatehouse_sqlite_checkpointed_frames_total (\d+)$/m)?.[1]);
    if (TEST_DB !== 'sqlite') return expect(await pages()).toBe(0);
    const deadline = Date.now() + 10_000;
    while (!((await pages()) > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await pages()).toBeGreaterThan(0);
  });

  it('with ADMIN_TOKEN: 401 without it or with a wrong one, 200 with it', async () => {
    expect((await api(guarded, 'GET', '/metrics')).status).toBe(401);
    expect((await api(guarded, 'GET', '/metrics', { bearer: 'wrong' })).status).toBe(401);
    const ok = await api(guarded, 'GET', '/metrics', { bearer: ADMIN_TOKEN });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatch(/gatehouse_http_request_duration_seconds_bucket/);
  });

  it('35.4 without ADMIN_TOKEN a loopback request carrying a proxy header is 403 (behind a same-host proxy every client is loopback), and start-up warns', async () => {
    for (const headers of [{ 'x-forwarded-for': '203.0.113.7' } as Record<string, string>, { 'x-real-ip': '203.0.113.7' }, { forwarded: 'for=203.0.113.7' }, { 'x-forwarded-for': '127.0.0.1' }]) {
      const res = await api(open, 'GET', '/metrics', { headers });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.detail).toMatch(/ADMIN_TOKEN/);
    }
    expect((await api(open, 'GET', '/metrics')).status).toBe(200);
    // With ADMIN_TOKEN the token decides, through a proxy too.
    expect((await api(guarded, 'GET', '/metrics', { bearer: ADMIN_TOKEN, headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(200);
    expect(await open.logs()).toMatch(/TRUST_PROXY is set without ADMIN_TOKEN: \/metrics answers loopback clients only/);
    expect(await guarded.logs()).not.toMatch(/TRUST_PROXY is set without ADMIN_TOKEN/);
  });
});
