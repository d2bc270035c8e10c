#!/usr/bin/env node
// Webhook delivery (issue 51; bench/README.md, "Webhooks (issue 51)"). A benchmark, not a test: nothing asserts a timing.
//
//   --scenario throughput: N user.created events queued for one endpoint at a local receiver (a bare node:http
//     server answering 204 that counts webhook-id values, duplicates counted), then delivered: deliveries/s from
//     the first receipt to the last, and each node's CPU per delivery (and, with --nodes 2 on PostgreSQL, its share).
//     The events are written first through POST /v1/users/import (no endpoint yet), then the endpoint is created
//     and POST /v1/webhooks/{id}/replay {since} queues one delivery per event: the worker starts on a full queue.
//   --scenario drain: the receiver down (its port refuses connections) while --events users are imported with
//     the endpoint subscribed (each user.created queued in its transaction and attempted, refused, retried every
//     --retry-seconds as WEBHOOK_RETRY_SCHEDULE says), then the receiver up: time until every event arrived, the rate.
//
//   npm run build && node bench/webhooks.mjs --scenario throughput [--db postgres|sqlite] [--events 20000] [--nodes 1|2] [--quick]
//   node bench/webhooks.mjs --scenario drain [--db postgres] [--events 60000] [--retry-seconds 30] [--quick]
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { call } from './lib/fixtures.mjs';
import { createDatabase, freePort, startServer } from './lib/server.mjs';

const { values: opts } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'throughput' },
    db: { type: 'string', default: 'postgres' },
    events: { type: 'string' },
    nodes: { type: 'string', default: '1' },
    'retry-seconds': { type: 'string', default: '30' },
    quick: { type: 'boolean', default: false },
    'timeout-seconds': { type: 'string', default: '900' },
    'cpu-prof': { type: 'string' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const scenario = opts.scenario;
if (!['throughput', 'drain'].includes(scenario)) throw new Error('--scenario throughput|drain');
const events = Number(opts.events ?? (scenario === 'drain' ? (opts.quick ? 3000 : 60000) : opts.quick ? 2000 : 20000));
const nodes = Number(opts.nodes);
if (nodes > 1 && opts.db !== 'postgres') throw new Error('--nodes 2 needs --db postgres (SQLite is one node)');
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
const log = (line) => console.log(`[${new Date().toISOString().slice(11, 19)} load ${load()}] ${line}`);

/** The receiver: 204 to every POST, counting webhook-id values; `up(port)` starts listening, until then the port refuses. */
function receiver() {
  const seen = new Set();
  const state = { received: 0, duplicates: 0, first: 0, last: 0, seen, since: 0, perSecond: [] };
  const http = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const now = performance.now();
      const id = request.headers['webhook-id'];
      state.received++;
      if (seen.has(id)) state.duplicates++;
      else {
        seen.add(id);
        const second = Math.floor((now - state.since) / 1000);
        state.perSecond[second] = (state.perSecond[second] ?? 0) + 1;
      }
      if (!state.first) state.first = now;
      state.last = now;
      response.writeHead(204).end();
    });
  });
  http.keepAliveTimeout = 60_000;
  state.up = (port) => new Promise((ready) => http.listen(port, '127.0.0.1', ready)).then(() => void (state.since = performance.now()));
  /** Distinct webhook-ids a second, in `width`-second buckets from the receiver's start. */
  state.buckets = (width) => {
    const out = [];
    for (let i = 0; i < state.perSecond.length; i += width) out.push(Math.round(Array.from({ length: width }, (_, j) => state.perSecond[i + j] ?? 0).reduce((a, b) => a + b) / width));
    return out;
  };
  state.close = () => new Promise((done) => http.close(done) && http.closeAllConnections());
  return state;
}

/** Waits until the receiver has `count` distinct webhook-ids (or the timeout); logs progress every 10 s. */
async function arrived(rx, count) {
  const deadline = Date.now() + Number(opts['timeout-seconds']) * 1000;
  let lastLog = Date.now();
  while (rx.seen.size < count) {
    if (Date.now() > deadline) throw new Error(`only ${rx.seen.size} of ${count} events arrived within ${opts['timeout-seconds']} s`);
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`${rx.seen.size} of ${count} arrived`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function importUsers(server, secretKey, count, run) {
  const started = performance.now();
  for (let from = 0; from < count; from += 1000) {
    const users = Array.from({ length: Math.min(1000, count - from) }, (_, i) => ({ email: `w${from + i}.${run}@example.com` }));
    const body = await call(server, 'POST', '/v1/users/import', { body: { users }, headers: { authorization: `Bearer ${secretKey}` } });
    if (body.created !== users.length) throw new Error(`import at ${from}: ${JSON.stringify(body).slice(0, 300)}`);
    if ((from / 1000) % 10 === 9) log(`${from + users.length} of ${count} users imported`);
  }
  return (performance.now() - started) / 1000;
}

/** PostgreSQL: the database's committed transactions and rows read/updated so far (pg_stat_database); undefined on SQLite. */
async function pgStats(databaseUrl) {
  if (!databaseUrl.startsWith('postgres')) return undefined;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query('SELECT xact_commit, tup_returned, tup_fetched, tup_updated FROM pg_stat_database WHERE datname = current_database()');
    return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
  } finally {
    await client.end();
  }
}

/** Attempts each node counted (gatehouse_webhook_attempts_total by outcome), from its /metrics. */
async function attemptsOf(server) {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const counts = {};
  for (const [, outcome, value] of text.matchAll(/^gatehouse_webhook_attempts_total\{outcome="(\w+)"\} (\S+)$/gm)) counts[outcome] = Number(value);
  return counts;
}

const database = await createDatabase({ db: opts.db, pgAdminUrl: opts['pg-url'] });
const env = { WEBHOOK_ALLOW_PRIVATE: 'true' };
if (scenario === 'drain') env.WEBHOOK_RETRY_SCHEDULE = Array(20).fill(opts['retry-seconds']).join(',');
const servers = [];
const rx = receiver();
try {
  for (let i = 0; i < nodes; i++) servers.push(await startServer({ db: opts.db, pgAdminUrl: opts['pg-url'], database, env, cpuProfDir: opts['cpu-prof'] }));
  const [first] = servers;
  const { tenant_id } = await first.cli(['tenant', 'create', '--name', 'Webhooks']);
  const app = await first.cli(['app', 'create', '--tenant', tenant_id, '--name', 'Webhooks']);
  const secret = { authorization: `Bearer ${app.secret_key}` };
  const port = await freePort();
  const endpoint = () => call(first, 'POST', '/v1/webhooks', { body: { url: `http://127.0.0.1:${port}/hook`, event_types: ['user.created'] }, headers: secret, expect: 201 });
  const run = Date.now().toString(36);
  log(`${scenario} on ${opts.db}, ${nodes} node(s), ${events} events${opts.quick ? ' (--quick)' : ''}`);

  if (scenario === 'throughput') {
    const since = new Date(Date.now() - 1000).toISOString();
    const importSeconds = await importUsers(first, app.secret_key, events, run);
    log(`${events} users imported in ${importSeconds.toFixed(1)} s (no endpoint yet: nothing queued)`);
    await rx.up(port);
    const hook = await endpoint();
    const cpu0 = servers.map((s) => s.cpu());
    const stats0 = await pgStats(first.databaseUrl);
    const t0 = performance.now();
    const { queued } = await call(first, 'POST', `/v1/webhooks/${hook.webhook_id}/replay`, { body: { since }, headers: secret, expect: 202 });
    log(`replay queued ${queued} deliveries in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    await arrived(rx, queued);
    const cpu = servers.map((s, i) => s.cpu() - cpu0[i]);
    const span = (rx.last - rx.first) / 1000;
    let shares = await Promise.all(servers.map(attemptsOf));
    // The last attempts are recorded just after their receipt: wait a moment for the counters.
    for (let i = 0; i < 50 && shares.reduce((n, c) => n + (c.succeeded ?? 0), 0) < queued; i++) {
      await new Promise((r) => setTimeout(r, 100));
      shares = await Promise.all(servers.map(attemptsOf));
    }
    log(`throughput ${opts.db}: ${queued} deliveries in ${span.toFixed(2)} s from first to last receipt: ${Math.round(queued / span)} deliveries/s (${Math.round(queued / span / nodes)} per node); from the replay call: ${((rx.last - t0) / 1000).toFixed(2)} s`);
    servers.forEach((s, i) => {
      const ok = shares[i].succeeded ?? 0;
      log(`  node ${i + 1}: ${ok} attempts succeeded (${((100 * ok) / queued).toFixed(1)} %), CPU ${cpu[i].toFixed(2)} s: ${ok ? Math.round((cpu[i] * 1e6) / ok) : '-'} µs a delivery (the replay's queueing included on node 1)`);
    });
    log(`  receiver: ${rx.received} requests, ${rx.seen.size} distinct webhook-ids, ${rx.duplicates} duplicates`);
    // pg_stat_database is sent by each backend when it goes idle, within about a second: a moment's wait first.
    if (stats0) {
      await new Promise((r) => setTimeout(r, 1500));
      const s1 = await pgStats(first.databaseUrl);
      const per = (k) => ((s1[k] - stats0[k]) / queued).toFixed(2);
      log(`  PostgreSQL per delivery (the replay included): ${per('xact_commit')} transactions, ${per('tup_updated')} rows updated, ${per('tup_fetched')} rows fetched`);
    }
    log(`  distinct deliveries a second, 2-s buckets from the receiver's start: ${rx.buckets(2).join(' ')}`);
  } else {
    await endpoint(); // the receiver's port is free and nobody listens: every attempt is refused
    const cpu0 = servers.map((s) => s.cpu());
    const importSeconds = await importUsers(first, app.secret_key, events, run);
    log(`outage: ${events} users imported in ${importSeconds.toFixed(1)} s (${Math.round(events / importSeconds)}/s; the story's traffic is 100/s) with the receiver down; retries every ${opts['retry-seconds']} s`);
    const during = await Promise.all(servers.map(attemptsOf));
    log(`  attempts refused during the outage: ${during.map((c) => c.retrying ?? 0).join(' + ')}; server CPU ${servers.map((s, i) => (s.cpu() - cpu0[i]).toFixed(1)).join(' + ')} s`);
    const cpu1 = servers.map((s) => s.cpu());
    const up = performance.now();
    await rx.up(port);
    log('receiver up');
    await arrived(rx, events);
    const span = (rx.last - rx.first) / 1000;
    const total = (rx.last - up) / 1000;
    const after = await Promise.all(servers.map(attemptsOf));
    const cpu = servers.map((s, i) => s.cpu() - cpu1[i]);
    log(`drain ${opts.db}: ${events} events delivered ${total.toFixed(1)} s after the receiver came up (first receipt after ${((rx.first - up) / 1000).toFixed(1)} s); first to last receipt ${span.toFixed(1)} s: ${Math.round(events / span)} deliveries/s`);
    servers.forEach((s, i) => {
      const ok = after[i].succeeded ?? 0;
      log(`  node ${i + 1}: ${ok} succeeded, ${(after[i].retrying ?? 0) - (during[i].retrying ?? 0)} more refused while draining, CPU ${cpu[i].toFixed(1)} s: ${ok ? Math.round((cpu[i] * 1e6) / ok) : '-'} µs a delivery`);
    });
    log(`  receiver: ${rx.received} requests, ${rx.seen.size} distinct webhook-ids, ${rx.duplicates} duplicates`);
    const buckets = rx.buckets(5);
    log(`  distinct deliveries a second, 5-s buckets from the receiver's start: ${buckets.join(' ')} (peak ${Math.max(...buckets)}/s)`);
  }
} finally {
  await rx.close().catch(() => {});
  for (const s of servers) await s.stop();
  await database.drop();
}
