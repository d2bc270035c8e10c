import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBE_REUSE_MS } from '../../src/http/routes/health.js';
import { PG_ADMIN_URL, TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Losing the database is the fault we can cause for real; PostgreSQL lets a test take it away from a
// running server (an open SQLite file cannot be pulled from under its process).
describe.skipIf(TEST_DB !== 'postgres')('contract 0: faults', () => {
  let server: TestServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startServer();
    app = await createApp(server);
    const name = new URL(server.databaseUrl).pathname.slice(1);
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
    // Health answers from a successful probe for this long (the server's start-up check made one).
    await new Promise((resolve) => setTimeout(resolve, PROBE_REUSE_MS));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('GET /v1/health answers 503 {detail} when the database is unreachable', async () => {
    const res = await api(server, 'GET', '/v1/health');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'database unreachable', code: 'database_unavailable' });
  });

  it('an unexpected fault is 500 {detail: "internal error"} with no internals; the log has the cause and request id', async () => {
    const res = await api(server, 'POST', '/v1/signins', {
      publishableKey: app.publishable_key,
      body: { email: 'a@example.com', password: 'whatever pass' },
      headers: { 'x-request-id': 'fault-trace-1' },
    });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: 'internal error', code: 'internal' });
    expect(res.headers.get('x-request-id')).toBe('fault-trace-1');
    const lines = (await server.logs()).split('\n').filter((l) => l.includes('"reqId":"fault-trace-1"'));
    const errorLine = lines.map((l) => JSON.parse(l)).find((l) => l.level >= 50);
    expect(errorLine).toBeDefined();
    expect(JSON.stringify(errorLine)).toMatch(/does not exist|database/i);
  });
});
