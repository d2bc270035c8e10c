import Fastify from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/http/plugins/errors.js';
import { connectionFailure } from '../../src/store/dialect.js';
import { createPostgresDatabase } from '../helpers/db.js';

// Contention is no bug: a deadlock PostgreSQL broke, a serializable transaction that lost, a statement that
// waited past lock_timeout (behind a migration's lock, say) are answered 503 with Retry-After, as an outage
// is, never 500. The errors here are PostgreSQL's own, made by real transactions.

let database: { url: string; drop(): Promise<void> };
const clients: pg.Client[] = [];

async function client(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: database.url });
  await c.connect();
  clients.push(c);
  return c;
}

beforeAll(async () => {
  database = await createPostgresDatabase();
  const setup = await client();
  await setup.query('CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL)');
  await setup.query('INSERT INTO t VALUES (1, 0), (2, 0)');
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => {})));
  await database?.drop();
});

/** The error one of two transactions meets when each waits for a row the other holds. */
async function realDeadlock(): Promise<Error> {
  const [a, b] = [await client(), await client()];
  await a.query('BEGIN');
  await b.query('BEGIN');
  await a.query('UPDATE t SET n = n + 1 WHERE id = 1');
  await b.query('UPDATE t SET n = n + 1 WHERE id = 2');
  const results = await Promise.allSettled([a.query('UPDATE t SET n = n + 1 WHERE id = 2'), b.query('UPDATE t SET n = n + 1 WHERE id = 1')]);
  await a.query('ROLLBACK');
  await b.query('ROLLBACK');
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  expect(failed).toHaveLength(1);
  return failed[0]!.reason as Error;
}

async function realSerializationFailure(): Promise<Error> {
  const [a, b] = [await client(), await client()];
  await a.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
  await b.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
  await a.query('SELECT sum(n) FROM t');
  await b.query('SELECT sum(n) FROM t');
  await a.query('UPDATE t SET n = n + 1 WHERE id = 1');
  await b.query('UPDATE t SET n = n + 1 WHERE id = 2');
  await a.query('COMMIT');
  const error = await b.query('COMMIT').then(() => undefined, (e: Error) => e);
  await b.query('ROLLBACK').catch(() => {});
  expect(error).toBeInstanceOf(Error);
  return error!;
}

async function realLockTimeout(): Promise<Error> {
  const [holder, waiter] = [await client(), await client()];
  await holder.query('BEGIN');
  await holder.query('LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
  await waiter.query("SET lock_timeout = '50ms'");
  const error = await waiter.query('SELECT * FROM t').then(() => undefined, (e: Error) => e);
  await holder.query('ROLLBACK');
  expect(error).toBeInstanceOf(Error);
  return error!;
}

it('55 contention: PostgreSQL\'s deadlock, serialization failure and lock timeout are named, and answered 503 with Retry-After and {detail, code}', async () => {
  const errors = { deadlock: await realDeadlock(), serialization: await realSerializationFailure(), lock_timeout: await realLockTimeout() };
  expect(Object.fromEntries(Object.entries(errors).map(([k, e]) => [k, (e as { code?: string }).code]))).toEqual({ deadlock: '40P01', serialization: '40001', lock_timeout: '55P03' });

  const seen: string[] = [];
  const app = Fastify();
  registerErrorHandling(app as never, { onUnavailable: (cause) => seen.push(cause) });
  app.get('/:kind', async (request) => {
    throw errors[(request.params as { kind: keyof typeof errors }).kind];
  });
  for (const kind of Object.keys(errors) as (keyof typeof errors)[]) {
    expect(connectionFailure(errors[kind])).toBe(kind);
    const answer = await app.inject({ url: `/${kind}` });
    expect(answer.statusCode).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.json()).toEqual({ detail: 'service temporarily unavailable; retry shortly', code: 'database_unavailable' });
  }
  expect(seen).toEqual(['deadlock', 'serialization', 'lock_timeout']);
  await app.close();
});
