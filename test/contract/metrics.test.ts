import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

const ADMIN_TOKEN = 'metrics-test-admin-token-0123456789abcdef';
let open: TestServer;
let guarded: TestServer;

beforeAll(async () => {
  [open, guarded] = await Promise.all([startServer(), startServer({ ADMIN_TOKEN })]);
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

  it('with ADMIN_TOKEN: 401 without it or with a wrong one, 200 with it', async () => {
    expect((await api(guarded, 'GET', '/metrics')).status).toBe(401);
    expect((await api(guarded, 'GET', '/metrics', { bearer: 'wrong' })).status).toBe(401);
    const ok = await api(guarded, 'GET', '/metrics', { bearer: ADMIN_TOKEN });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatch(/gatehouse_http_request_duration_seconds_bucket/);
  });
});
