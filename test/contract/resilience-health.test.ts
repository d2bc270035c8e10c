import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_FLUSH_MS } from '../../src/observability/logger.js';
import { TEST_DB } from '../helpers/db.js';
import { api } from '../helpers/fixtures.js';
import { createDeployment, startNode, type Deployment, type NodeProcess } from '../helpers/node-process.js';
import { postgresBinDir, startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';

// Issue 38, item 8: a stopped database under a load balancer's health checks. Every failed probe used to
// log an error with a full stack; now the outage is one rate-limited warning, and every line stays JSON.
// The database is stopped for real on a private PostgreSQL cluster (as in resilience-postgres.test.ts);
// an open SQLite file cannot be taken from under its process, so there is no SQLite case.

describe.skipIf(TEST_DB !== 'postgres' || !postgresBinDir())('issue 38: health probes during a stopped database', () => {
  let cluster: PrivatePostgres;
  let deployment: Deployment;
  let node: NodeProcess;

  beforeAll(async () => {
    cluster = await startPrivatePostgres();
    deployment = await createDeployment({ postgresUrl: cluster.url, env: { DB_QUERY_TIMEOUT_MS: '1500', DB_POOL_TIMEOUT_MS: '1500' } });
    node = await startNode(deployment);
  });
  afterAll(async () => {
    await node?.stop();
    await cluster?.destroy();
    await deployment?.destroy();
  });

  it('8 many health probes during a stopped database: each 503 with Retry-After, one rate-limited warning (no stack), every log line JSON; 200 again once it is back', async () => {
    const from = node.output().length;
    await cluster.stop();
    const started = Date.now();
    try {
      for (let batch = 0; batch < 10; batch++) {
        const answers = await Promise.all(Array.from({ length: 10 }, () => api(node, 'GET', '/v1/health')));
        for (const res of answers) {
          expect(res.status).toBe(503);
          expect(res.body).toEqual({ detail: 'database unreachable', code: 'database_unavailable' });
          expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        }
        // Liveness checks no dependency: an orchestrator's liveness probe does not restart the node.
        expect((await api(node, 'GET', '/v1/health/live')).status).toBe(200);
      }
    } finally {
      await cluster.start();
    }
    const elapsed = Date.now() - started;
    await expect.poll(async () => (await api(node, 'GET', '/v1/health')).status, { timeout: 20_000, interval: 200 }).toBe(200);
    await new Promise((r) => setTimeout(r, LOG_FLUSH_MS + 150)); // queued log lines are out
    const lines = node.output().slice(from).split('\n').filter((line) => line.trim() !== '');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const warnings = parsed.filter((l) => l.code === 'database_unavailable');
    // 100 failed probes: one line per cause every 10 s.
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    for (const cause of new Set(warnings.map((l) => l.cause))) {
      expect(warnings.filter((l) => l.cause === cause).length).toBeLessThanOrEqual(1 + Math.floor(elapsed / 10_000));
    }
    for (const line of warnings) expect(line).toMatchObject({ level: 40, error: expect.any(String), suppressed: expect.any(Number) });
    // What the probes logged (a background job meeting the outage, such as billing's first run, may log its own error).
    const probes = parsed.filter((l) => l.reqId !== undefined || l.code === 'database_unavailable');
    expect(probes.length).toBeGreaterThan(0);
    for (const line of probes) expect(JSON.stringify(line)).not.toMatch(/"stack"/);
    expect(probes.filter((l) => (l.level as number) >= 50)).toEqual([]);
    const metrics = await fetch(`${node.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^gatehouse_database_unavailable_total\{cause="[a-z_]+"\} \d+/m);
  }, 180_000);
});
