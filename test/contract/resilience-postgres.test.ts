import pg from 'pg';
import { LOG_FLUSH_MS } from '../../src/observability/logger.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, uniqueEmail } from '../helpers/accounts.js';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, type JsonResponse, type TestApp } from '../helpers/fixtures.js';
import { createDeployment, logLines, startNode, type Deployment, type NodeProcess } from '../helpers/node-process.js';
import { postgresBinDir, startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { extractCode, startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

// Issue 8, faults injected for real on PostgreSQL: the database restarted, stopped and hung under two
// server processes. Each run gets a private cluster (initdb on a free port), so restarting it never
// touches the PostgreSQL other test files share. On SQLite there is no server to take away.

const QUERY_TIMEOUT_MS = 1_500;
const POOL_TIMEOUT_MS = 1_500;
/** Nothing may hang: the slowest answer is bounded by a pool wait plus a query, with room for a loaded machine. */
const SLOWEST_MS = QUERY_TIMEOUT_MS + POOL_TIMEOUT_MS + 4_000;

interface Outcome {
  status: number;
  ms: number;
  retryAfter: string | null;
  body: unknown;
}

describe.skipIf(TEST_DB !== 'postgres' || !postgresBinDir())('issue 8: PostgreSQL restarted, stopped or hung under load', () => {
  let cluster: PrivatePostgres;
  let sink: SmtpSink;
  let deployment: Deployment;
  let nodes: NodeProcess[];
  let app: TestApp;
  const user = { email: uniqueEmail('resilient'), password: 'correct horse battery', id: '' };

  beforeAll(async () => {
    cluster = await startPrivatePostgres();
    sink = await startSmtpSink();
    deployment = await createDeployment({
      postgresUrl: cluster.url,
      env: { SMTP_URL: sink.url, DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS), DB_POOL_TIMEOUT_MS: String(POOL_TIMEOUT_MS) },
    });
    nodes = [await startNode(deployment), await startNode(deployment)];
    app = await createApp(nodes[0], { args: ['--hashcash', 'off'] });
    const signup = await signUp(nodes[0], app, { email: user.email, password: user.password });
    expect(signup.status).toBe(200);
    user.id = signup.body.user_id;
    const code = extractCode((await sink.waitFor(user.email)).text);
    expect((await api(nodes[1], 'POST', '/v1/verify-code', { publishableKey: app.publishable_key, body: { email: user.email, code } })).status).toBe(200);
  });
  afterAll(async () => {
    for (const node of nodes ?? []) await node.stop();
    await cluster?.destroy();
    await deployment?.destroy();
    await sink?.close();
  });

  const signIn = (node: NodeProcess) =>
    api(node, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email, password: user.password } });
  const mint = (node: NodeProcess) =>
    api(node, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: user.id, expires_in_seconds: 60 } });

  async function timed(request: () => Promise<JsonResponse>): Promise<Outcome> {
    const started = Date.now();
    const res = await request();
    return { status: res.status, ms: Date.now() - started, retryAfter: res.headers.get('retry-after'), body: res.body };
  }

  /** Sign-ins and session mints on both nodes, two loops each, until `until` resolves. */
  async function underLoad(until: () => Promise<void>): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    let done = false;
    const loops = nodes.flatMap((node) =>
      [signIn, mint].map(async (call) => {
        while (!done) outcomes.push(await timed(() => call(node)));
      }),
    );
    await new Promise((r) => setTimeout(r, 1_000));
    await until();
    done = true;
    await Promise.all(loops);
    return outcomes;
  }

  function expectCleanFailures(outcomes: Outcome[]): void {
    expect(outcomes.length).toBeGreaterThan(0);
    for (const outcome of outcomes) {
      expect([200, 503]).toContain(outcome.status);
      expect(outcome.ms).toBeLessThan(SLOWEST_MS);
      if (outcome.status === 503) {
        expect(outcome.retryAfter).toMatch(/^\d+$/);
        expect(outcome.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
      }
    }
  }

  async function bothServeAgain(withinMs: number): Promise<void> {
    const started = Date.now();
    for (const node of nodes) {
      await expect.poll(async () => (await signIn(node)).status, { timeout: withinMs, interval: 200 }).toBe(200);
      await expect.poll(async () => (await mint(node)).status, { timeout: withinMs, interval: 200 }).toBe(200);
    }
    expect(Date.now() - started).toBeLessThan(withinMs);
  }

  it('a restart amid sign-ins and session mints: both processes survive, answer 200 or 503 with Retry-After, and serve again within seconds', async () => {
    const outcomes = await underLoad(async () => {
      await cluster.restart();
      await new Promise((r) => setTimeout(r, 1_000));
    });
    for (const node of nodes) expect(node.child.exitCode).toBeNull();
    expectCleanFailures(outcomes);
    await bothServeAgain(10_000);
  });

  it('stopped for 20 s: 503 {detail} with Retry-After (never 500, never hanging), a few log lines, a metric; then 200 again', async () => {
    const outcomes = await underLoad(async () => {
      await cluster.stop();
      // The outage itself: a real PostgreSQL stopped for 20 s under load (fault project, beside the main pass).
      await new Promise((r) => setTimeout(r, 20_000));
      await cluster.start();
    });
    expectCleanFailures(outcomes);
    expect(outcomes.filter((o) => o.status === 503).length).toBeGreaterThan(10);
    await bothServeAgain(10_000);
    await new Promise((r) => setTimeout(r, LOG_FLUSH_MS + 150)); // queued log lines are out
    for (const node of nodes) {
      expect(node.child.exitCode).toBeNull();
      const lines = logLines(node);
      // One line per cause every 10 s per node, not one per request.
      expect(lines.filter((l) => l.code === 'database_unavailable' && l.level === 40).length).toBeLessThan(15);
      expect(lines.filter((l) => l.msg === 'unhandled error')).toEqual([]);
      const metrics = await fetch(`${node.url}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(/^gatehouse_database_unavailable_total\{cause="[a-z_]+"\} [1-9]/m);
    }
  });

  it('a hung database (a table locked by another client): requests answer 503 within the query timeout, then 200 once it lets go', async () => {
    const locker = new pg.Client({ connectionString: new URL(new URL(deployment.databaseUrl).pathname, cluster.url).toString() });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE');
      const outcomes = await Promise.all(nodes.flatMap((node) => [timed(() => mint(node)), timed(() => mint(node))]));
      for (const outcome of outcomes) {
        expect(outcome.status).toBe(503);
        expect(outcome.retryAfter).toMatch(/^\d+$/);
        expect(outcome.ms).toBeLessThan(QUERY_TIMEOUT_MS + 3_000);
      }
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    await bothServeAgain(5_000);
  });

  it('a frozen server (SIGSTOP: it accepts and answers nothing): requests answer 503 within the client-side timeouts, then 200 once it runs again', async () => {
    await cluster.freeze();
    try {
      const outcomes = await Promise.all(nodes.flatMap((node) => [timed(() => mint(node)), timed(() => signIn(node))]));
      for (const outcome of outcomes) {
        expect(outcome.status).toBe(503);
        expect(outcome.retryAfter).toMatch(/^\d+$/);
        expect(outcome.ms).toBeLessThan(SLOWEST_MS);
      }
      for (const node of nodes) expect(node.child.exitCode).toBeNull();
    } finally {
      await cluster.thaw();
    }
    await bothServeAgain(10_000);
  });
});
