import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Scale-out (docs/architecture.md, docs/operations.md): two stateless nodes on one PostgreSQL database and one Redis. What one
// node does, the other sees on the next request.
describe.skipIf(TEST_DB !== 'postgres' || !process.env.TEST_REDIS_URL)('two nodes on one PostgreSQL and one Redis', () => {
  let a: TestServer;
  let b: TestServer;
  let app: TestApp;
  // Nodes behind one load balancer share PUBLIC_BASE_URL (the tokens' issuer) and MASTER_KEY.
  const shared = { RATE_LIMITS: 'signin_ip=1000/60,signin_email=4/60', PUBLIC_BASE_URL: 'https://auth.example.test' };

  beforeAll(async () => {
    a = await startServer(shared);
    b = await startServer({ ...shared, DATABASE_URL: a.databaseUrl, MASTER_KEY: a.env.MASTER_KEY });
    app = await createApp(a);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  async function signedIn(email: string) {
    const created = await api(a, 'POST', '/v1/users', { bearer: app.secret_key, body: { email, password: 'correct horse battery' } });
    expect(created.status).toBe(201);
    const res = await api(a, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password: 'correct horse battery' } });
    expect(res.status).toBe(200);
    return res.body as { access_token: string; refresh_token: string; session_id: string };
  }

  it('a token issued by one node is accepted by the other, and a logout on one is refused by the other at once', async () => {
    const tokens = await signedIn(`nodes-logout-${Date.now()}@example.com`);
    expect((await api(b, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: tokens.access_token })).status).toBe(200);
    expect((await api(a, 'POST', '/v1/sessions/logout', { publishableKey: app.publishable_key, bearer: tokens.access_token })).status).toBe(200);
    expect((await api(b, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: tokens.access_token })).status).toBe(401);
  });

  it('one refresh token sent to both nodes at once: exactly one rotation wins', async () => {
    const tokens = await signedIn(`nodes-refresh-${Date.now()}@example.com`);
    const body = { refresh_token: tokens.refresh_token };
    const results = await Promise.all([
      api(a, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body }),
      api(b, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body }),
      api(a, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body }),
      api(b, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401]);
  });

  it("an app created, or an origin added, by the CLI is on the other node's CORS allow-list at once (issue 48)", async () => {
    const preflight = (origin: string) =>
      api(b, 'OPTIONS', '/v1/signins', { headers: { origin, 'access-control-request-method': 'POST' } });
    const page = `https://new-app-${Date.now()}.example.test`;
    // Node B has read the union of every allow-list (it refused the page), then the app is made.
    expect((await preflight(page)).status).toBe(403);
    const created = await createApp(a, { args: ['--allowed-origin', page] });
    const allowed = await preflight(page);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(page);

    const second = `https://second-page-${Date.now()}.example.test`;
    expect((await preflight(second)).status).toBe(403);
    const updated = await a.cli(['app', 'update', created.app_id, '--add-allowed-origin', second]);
    expect(updated.code).toBe(0);
    expect((await preflight(second)).status).toBe(204);
  });

  it('a revocation through one node is seen by the other', async () => {
    const tokens = await signedIn(`nodes-revoke-${Date.now()}@example.com`);
    const revoked = await api(b, 'POST', `/v1/sessions/revoke?session_id=${tokens.session_id}`, { bearer: app.secret_key });
    expect(revoked.status).toBe(200);
    expect((await api(a, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: tokens.access_token })).status).toBe(401);
  });

  it('rate-limit windows are shared through Redis: signin_email=4/60 counts requests to both nodes', async () => {
    const email = `nodes-limit-${Date.now()}@example.com`;
    const statuses: number[] = [];
    for (const node of [a, b, a, b, a]) {
      const res = await api(node, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password: 'wrong password' } });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
  });
});
