import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// A real deadlock between a request and another transaction (a stand-in for a second node or a migration):
// PATCH /v1/users/:id updates the user's row, then writes its user.updated event; the other transaction holds
// the events table and then asks for that user's row. PostgreSQL ends the request's transaction (its
// deadlock_timeout is the shorter). With DB_TRANSACTION_RETRIES=0 the client sees 503 with Retry-After and
// nothing changed; with the default the transaction runs again and the client sees 200, the change made once.

interface Node {
  server: TestServer;
  app: TestApp;
}
let noRetries: Node;
let retrying: Node;

async function node(env: Record<string, string>): Promise<Node> {
  const server = await startServer(env);
  return { server, app: await createApp(server) };
}

beforeAll(async () => {
  if (TEST_DB !== 'postgres') return;
  [noRetries, retrying] = await Promise.all([node({ DB_TRANSACTION_RETRIES: '0' }), node({})]);
}, 120_000);
afterAll(async () => {
  await Promise.all([noRetries?.server.stop(), retrying?.server.stop()]);
});

async function client(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return c;
}

/** A metadata column as stored (text on one database, JSON on another), as an object. */
const stored = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : (value ?? {}));

const sample = async (server: TestServer, series: string) => {
  const text = (await api(server, 'GET', '/metrics')).body as unknown as string;
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
};

/**
 * PATCHes a new user of `n`'s app into a deadlock with another transaction; returns the answer, the user's
 * id and what the database holds of it afterwards.
 */
async function patchIntoDeadlock({ server, app }: Node) {
  const created = await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email: `deadlock.${Date.now()}@example.com` } });
  expect(created.status).toBe(201);
  const userId = created.body.id as string;
  const [other, watcher] = [await client(server.databaseUrl), await client(server.databaseUrl)];
  try {
    // Only the request's backend looks for the deadlock within the test: it is the one PostgreSQL ends.
    await other.query("SET deadlock_timeout = '20s'");
    await other.query('BEGIN');
    await other.query('LOCK TABLE events IN SHARE MODE');
    const answer = api(server, 'PATCH', `/v1/users/${userId}`, { bearer: app.secret_key, body: { public_metadata: { plan: 'pro' } } });
    // The request holds the user's row and waits for the events table.
    for (let waited = 0; ; waited += 20) {
      const { rows } = await watcher.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%events%'");
      if (rows[0].n > 0) break;
      if (waited > 10_000) throw new Error('the request never waited for the events table');
      await new Promise((r) => setTimeout(r, 20));
    }
    await other.query('UPDATE users SET updated_at = updated_at WHERE id = $1', [userId]);
    // PostgreSQL ended the request's transaction (the only way this UPDATE got the row); a re-run waits for us.
    await new Promise((r) => setTimeout(r, 200));
    await other.query('ROLLBACK');
    const res = await answer;
    const { rows: users } = await watcher.query('SELECT public_metadata FROM users WHERE id = $1', [userId]);
    const { rows: events } = await watcher.query("SELECT count(*)::int AS n FROM events WHERE user_id = $1 AND type = 'user.updated'", [userId]);
    return { res, userId, metadata: users[0].public_metadata as unknown, updatedEvents: events[0].n as number };
  } finally {
    await Promise.all([other.end().catch(() => {}), watcher.end()]);
  }
}

describe.skipIf(TEST_DB !== 'postgres')('55 a deadlock over HTTP: retried, or 503 with Retry-After, never 500', () => {
  it('DB_TRANSACTION_RETRIES=0: the request PostgreSQL ended answers 503 database_unavailable with Retry-After, and changed nothing', async () => {
    const { res, userId, metadata, updatedEvents } = await patchIntoDeadlock(noRetries);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body).toEqual({ detail: 'service temporarily unavailable; retry shortly', code: 'database_unavailable' });
    expect(stored(metadata)).toEqual({});
    expect(updatedEvents).toBe(0);
    expect(await sample(noRetries.server, 'gatehouse_db_transactions_contended_total{cause="deadlock",outcome="gave_up"}')).toBe(1);
    expect(await sample(noRetries.server, 'gatehouse_database_unavailable_total{cause="deadlock"}')).toBe(1);
    // The same request sent again, as Retry-After says, succeeds.
    const again = await api(noRetries.server, 'PATCH', `/v1/users/${userId}`, { bearer: noRetries.app.secret_key, body: { public_metadata: { plan: 'pro' } } });
    expect(again.status).toBe(200);
  });

  it('by default the transaction runs again: 200, the change and its one event committed once', async () => {
    const { res, userId, metadata, updatedEvents } = await patchIntoDeadlock(retrying);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: userId, public_metadata: { plan: 'pro' } });
    expect(stored(metadata)).toEqual({ plan: 'pro' });
    expect(updatedEvents).toBe(1);
    expect(await sample(retrying.server, 'gatehouse_db_transactions_contended_total{cause="deadlock",outcome="retried"}')).toBe(1);
    expect(await sample(retrying.server, 'gatehouse_database_unavailable_total{cause="deadlock"}')).toBe(0);
  });
});
