#!/usr/bin/env node
// Data scale (issue 38): the same build against a small database and a large one, in one run. The large one
// holds one app with --users users (default 1,000,000), a session each, a --rows-row custom table, and
// --apps apps in all (default 10,000); the small one --small of each. Both are made the same way: the real
// migrations (`gatehouse migrate`), then the tenant, app and keys through the CLI and the bench user, its
// session and the custom tables through the API, then the bulk by SQL inside the database
// (bench/lib/scale-fill.mjs). Then, with both servers up:
//   1. start-up time (spawn to the first healthy answer) and RSS of each;
//   2. each hot route under autocannon, the small and the large server loaded at the same time (one load
//      process each, --rounds rounds): the large/small rate ratio and the ratio of the servers' CPU per
//      request are the figures (issue 38's target: the large within 1.5x of the small);
//   3. the max latency of GET /v1/health and GET /v1/me on the large database while a billing run and the
//      clean-up run in the server's own process (bench/lib/job-server.mjs: the same serve(), the jobs' code
//      on call, as the hourly and 10-minute timers run it) and while GET /v1/billing is called back to back,
//      against the same loads with nothing else running (target: under 100 ms);
//   4. the 400 with a hint of a table query too broad to bound, on a 250,000-row table.
// A benchmark, not a test: nothing asserts on a timing. Figures go to bench/README.md ("Data scale").
//
//   npm run build && node bench/data-scale.mjs [--db sqlite|postgres] [--users 1000000] [--rows 1000000] [--apps 10000]
//        [--small 1000] [--duration 4] [--connections 10] [--rounds 3] [--keep] [--stall-seconds 15] [--only health,me,...]
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_EMAIL, BENCH_PASSWORD, call } from './lib/fixtures.mjs';
import { runLoad } from './lib/load.mjs';
import { fillDatabase } from './lib/scale-fill.mjs';
import { createDatabase, ROOT, runCli, startServer } from './lib/server.mjs';

const { values: opts } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    users: { type: 'string', default: '1000000' },
    rows: { type: 'string', default: '1000000' },
    apps: { type: 'string', default: '10000' },
    'sparse-rows': { type: 'string', default: '250000' },
    small: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '4' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
    'stall-seconds': { type: 'string', default: '15' },
    only: { type: 'string' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const DB = opts.db;
const DURATION = Number(opts.duration);
const CONNECTIONS = Number(opts.connections);
const ROUNDS = Number(opts.rounds);
const SIZES = [
  { label: 'small', users: Number(opts.small), rows: Number(opts.small), apps: Number(opts.small), sparseRows: Number(opts.small) },
  { label: 'large', users: Number(opts.users), rows: Number(opts.rows), apps: Number(opts.apps), sparseRows: Number(opts['sparse-rows']) },
];
const fmt = (n, digits = 0) => (n === undefined || Number.isNaN(n) ? 'n/a' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const load1 = () => loadavg()[0].toFixed(1);
const json = { 'content-type': 'application/json' };
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

/** The tenant, app and keys through the CLI; the bench user, its first session and the two custom tables through the API. */
async function prepareFixtures(server) {
  const { tenant_id } = await server.cli(['tenant', 'create', '--name', 'Scale']);
  const app = await server.cli(['app', 'create', '--tenant', tenant_id, '--name', 'Scale', '--hashcash', 'off', '--passwords', 'on', '--tables-limit-bytes', String(100 * 1024 ** 3)]);
  // A balance the billing runs below never exhaust (a tenant below zero is paused: every route 402).
  await server.cli(['billing', 'credit', '--tenant', tenant_id, '--amount-usd', '100000', '--note', 'bench']);
  const secret = { authorization: `Bearer ${app.secret_key}` };
  const user = await call(server, 'POST', '/v1/users', { body: { email: BENCH_EMAIL, password: BENCH_PASSWORD }, headers: secret, expect: 201 });
  await call(server, 'POST', '/v1/signins', { body: { email: BENCH_EMAIL, password: BENCH_PASSWORD }, headers: { 'x-publishable-key': app.publishable_key } });
  const table = (name, columns) => call(server, 'POST', '/v1/tables', { headers: secret, expect: 201, body: { name, columns } });
  const scores = await table('scores', [{ name: 'tenth', type: 'int' }, { name: 'rank', type: 'int' }, { name: 'title', type: 'text' }]);
  const sparse = await table('sparse', [{ name: 'flag', type: 'int' }, { name: 'rank', type: 'int' }]);
  return { tenantId: tenant_id, appId: app.app_id, publishableKey: app.publishable_key, secretKey: app.secret_key, userId: user.id, tables: { scores, sparse } };
}

/** One database of a size: migrated, fixtures, filled by SQL, then served; with the figures of its making. */
async function build(size) {
  const database = await createDatabase({ db: DB, pgAdminUrl: opts['pg-url'] });
  try {
    return await buildOn(size, database);
  } catch (error) {
    await database.drop();
    throw error;
  }
}

async function buildOn(size, database) {
  const migrateStarted = performance.now();
  await runCli(database, ['migrate']);
  const migrateSeconds = (performance.now() - migrateStarted) / 1000;
  const setup = await startServer({ db: DB, pgAdminUrl: opts['pg-url'], database });
  let fx;
  try {
    fx = await prepareFixtures(setup);
  } finally {
    await setup.stop();
  }
  const fill = await fillDatabase({ db: DB, databaseUrl: database.env.DATABASE_URL, fx, apps: size.apps, users: size.users, rows: size.rows, sparseRows: size.sparseRows, now: new Date() });
  const server = await startServer({ db: DB, pgAdminUrl: opts['pg-url'], database });
  const rssAfterStart = server.rss()?.rss;
  return { size, database, fx, server, migrateSeconds, fill, starts: [server.startMs], rssAfterStart };
}

/** What each measured route needs from its database: an access token, emails, cursors, request bodies. */
async function routeInputs({ size, fx, server }) {
  const secret = { authorization: `Bearer ${fx.secretKey}` };
  const pk = { 'x-publishable-key': fx.publishableKey };
  const signin = await call(server, 'POST', '/v1/signins', { body: { email: BENCH_EMAIL, password: BENCH_PASSWORD }, headers: pk });
  // Users picked at random over the whole app (u1..u(n-1) are the SQL-made ones).
  let seed = 7;
  const pick = () => {
    seed = (seed * 48271) % 2147483647;
    return 1 + (seed % (size.users - 1));
  };
  const emails = Array.from({ length: 2000 }, () => `u${pick()}@scale.example`);
  // A keyset cursor from the middle of the list (reached once by offset, unmeasured but timed).
  const offset = Math.floor(size.users / 2);
  const offsetStarted = performance.now();
  const middle = await call(server, 'GET', `/v1/users?limit=50&offset=${offset}`, { headers: secret });
  const offsetMs = performance.now() - offsetStarted;
  const query = { filter: { field: 'tenth', op: 'eq', value: 3 }, sort: { field: 'rank', dir: 'asc' }, limit: 50 };
  const queryPath = `/v1/tables/${fx.tables.scores.table_id}/rows/query`;
  let cursor = null;
  for (let i = 0; i < 10; i++) cursor = (await call(server, 'POST', queryPath, { headers: secret, body: { ...query, cursor } })).next_cursor;
  return {
    accessToken: signin.access_token,
    emails,
    usersCursor: middle.next_cursor,
    offset,
    offsetMs,
    tableCursor: cursor,
    queryPath,
    query,
  };
}

/** The measured routes: name, what it is, and the load spec for one database (its fixtures and inputs). */
const ROUTES = [
  { name: 'health', endpoint: 'GET /v1/health', spec: () => ({ method: 'GET', path: '/v1/health' }) },
  { name: 'jwks', endpoint: 'GET /.well-known/jwks.json?app_id=', spec: ({ fx }) => ({ method: 'GET', path: `/.well-known/jwks.json?app_id=${fx.appId}` }) },
  { name: 'me', endpoint: 'GET /v1/me (Publishable + Bearer)', spec: ({ fx }, input) => ({ method: 'GET', path: '/v1/me', headers: { 'x-publishable-key': fx.publishableKey, authorization: `Bearer ${input.accessToken}` } }) },
  {
    name: 'users_by_email',
    endpoint: 'GET /v1/users?email= (2,000 random users in turn)',
    spec: ({ fx }, input) => ({ method: 'GET', path: '/v1/users', paths: input.emails.map((e) => `/v1/users?email=${encodeURIComponent(e)}`), headers: { authorization: `Bearer ${fx.secretKey}` } }),
  },
  { name: 'users_first', endpoint: 'GET /v1/users?limit=50 (first page)', spec: ({ fx }) => ({ method: 'GET', path: '/v1/users?limit=50', headers: { authorization: `Bearer ${fx.secretKey}` } }) },
  {
    name: 'users_cursor',
    endpoint: 'GET /v1/users?limit=50&cursor= (keyset page from the middle)',
    spec: ({ fx }, input) => ({ method: 'GET', path: `/v1/users?limit=50&cursor=${encodeURIComponent(input.usersCursor)}`, headers: { authorization: `Bearer ${fx.secretKey}` } }),
  },
  {
    name: 'table_first',
    endpoint: 'POST .../rows/query filter tenth eq 3 (1 row in 10), sort rank asc, 50 (first page)',
    spec: ({ fx }, input) => ({ method: 'POST', path: input.queryPath, headers: { ...json, authorization: `Bearer ${fx.secretKey}` }, body: JSON.stringify(input.query) }),
  },
  {
    name: 'table_cursor',
    endpoint: 'the same query, cursor page (after 10 pages)',
    spec: ({ fx }, input) => ({ method: 'POST', path: input.queryPath, headers: { ...json, authorization: `Bearer ${fx.secretKey}` }, body: JSON.stringify({ ...input.query, cursor: input.tableCursor }) }),
  },
  {
    name: 'signin',
    endpoint: 'POST /v1/signins (random users, one argon2id verify each)',
    spec: ({ fx }, input) => ({
      method: 'POST',
      path: '/v1/signins',
      headers: { ...json, 'x-publishable-key': fx.publishableKey },
      bodies: input.emails.map((email) => JSON.stringify({ email, password: BENCH_PASSWORD })),
      exhaustedBody: JSON.stringify({ email: BENCH_EMAIL, password: BENCH_PASSWORD }),
    }),
  },
  {
    name: 'refresh',
    endpoint: 'POST /v1/tokens/session (a fresh refresh token each)',
    async spec({ fx, server }) {
      // Single-use tokens, minted beforehand (unmeasured) as bench/scenarios.mjs does, for twice the run's
      // length (minting costs about what a refresh does); a run that used them all is counted in non-2xx.
      const { collected } = await runLoad({
        url: server.url,
        connections: CONNECTIONS,
        duration: DURATION * 2,
        method: 'POST',
        path: '/v1/sign_in_tokens',
        headers: { ...json, authorization: `Bearer ${fx.secretKey}` },
        body: JSON.stringify({ user_id: fx.userId }),
        collect: 'refresh_token',
      });
      return {
        method: 'POST',
        path: '/v1/tokens/session',
        headers: { ...json, 'x-publishable-key': fx.publishableKey },
        bodies: collected.map((token) => JSON.stringify({ refresh_token: token })),
        exhaustedBody: JSON.stringify({ refresh_token: 'exhausted-no-refresh-token-left' }),
      };
    },
  },
];

/**
 * One round of a route: both databases' servers loaded at the same time, one autocannon process each (same
 * connections, same seconds), so both meet the same machine; per side the rate, latencies and the server's
 * own CPU per request (user + system from /proc), which a busy shared machine moves less than a rate.
 */
async function measurePair(sides, route) {
  // At the same time too: refresh mints its tokens under the same machine state on both sides.
  const specs = await Promise.all(sides.map((side) => route.spec(side, side.input)));
  const cpuBefore = sides.map((side) => side.server.cpu());
  for (const side of sides) side.server.resetPeak();
  const load = load1();
  const results = await Promise.all(sides.map((side, i) => runLoad({ url: side.server.url, connections: CONNECTIONS, duration: DURATION, ...specs[i] })));
  return sides.map((side, i) => {
    const { result } = results[i];
    const cpu = side.server.cpu() - cpuBefore[i];
    return { rate: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max, bad: result.non2xx + result.errors, cpuPerRequest: (cpu * 1e6) / result.requests.total, peak: side.server.rss()?.peak, load };
  });
}

/**
 * The max latency of /v1/health and /v1/me (one connection each) on a database while `job` runs (started 1 s
 * into the load): loads of --stall-seconds one after the other until the job has ended; no job: one load alone.
 */
async function underJob(side, job) {
  const seconds = Number(opts['stall-seconds']);
  const me = { 'x-publishable-key': side.fx.publishableKey, authorization: `Bearer ${side.input.accessToken}` };
  const windows = [];
  const startLoad = load1();
  let jobResult;
  let done = !job;
  const running = job
    ? new Promise((r) => setTimeout(r, 1000)).then(job).then((result) => {
        jobResult = result;
        done = true;
      })
    : Promise.resolve();
  do {
    windows.push(
      await Promise.all([
        runLoad({ url: side.server.url, connections: 1, duration: seconds, method: 'GET', path: '/v1/health' }),
        runLoad({ url: side.server.url, connections: 1, duration: seconds, method: 'GET', path: '/v1/me', headers: me }),
      ]),
    );
  } while (!done);
  await running;
  const merge = (i) => ({
    requests: windows.reduce((a, w) => a + w[i].result.requests.total, 0),
    p99: Math.max(...windows.map((w) => w[i].result.latency.p99)),
    max: Math.max(...windows.map((w) => w[i].result.latency.max)),
  });
  return { health: merge(0), me: merge(1), job: jobResult, load: `${startLoad}-${load1()}`, seconds: windows.length * seconds };
}

/** GET /v1/billing (the server counts the tenant's monthly active users) back to back for `seconds`. */
async function billingLoop(side, seconds) {
  const latencies = [];
  let overview;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const t0 = performance.now();
    overview = await call(side.server, 'GET', '/v1/billing', { headers: { authorization: `Bearer ${side.fx.secretKey}` } });
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, p50: latencies[Math.floor(latencies.length / 2)], max: latencies.at(-1), mau: overview.usage.monthly_active_users };
}

async function main() {
  const startedAt = new Date();
  console.log(`# gatehouse data scale: ${DB}, node ${process.version}; started ${startedAt.toISOString()}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`${DURATION} s per run, ${CONNECTIONS} connections each, ${ROUNDS} rounds (small and large loaded at the same time)\n`);
  const sides = [];
  try {
    for (const size of SIZES) {
      const started = performance.now();
      const side = await build(size);
      sides.push(side);
      console.log(`built ${size.label}: ${fmt(size.users)} users and sessions, ${fmt(size.rows)} rows, ${fmt(size.apps)} apps, in ${fmt((performance.now() - started) / 1000, 1)} s (migrate ${fmt(side.migrateSeconds, 1)} s; SQL fill ${Object.entries(side.fill.seconds).map(([k, v]) => `${k} ${fmt(v, 1)} s${side.fill.cpuSeconds ? ` (CPU ${fmt(side.fill.cpuSeconds[k], 1)} s)` : ''}`).join(', ')}); load average ${load1()}`);
    }
    const [small, large] = sides;
    // A second start of each, for the start-up time of a server that finds the database as it left it.
    for (const side of sides) {
      await side.server.stop();
      side.server = await startServer({ db: DB, pgAdminUrl: opts['pg-url'], database: side.database });
      side.starts.push(side.server.startMs);
      side.rssAfterRestart = side.server.rss()?.rss;
    }
    for (const side of sides) side.input = await routeInputs(side);

    console.log('\n## Start-up and memory\n');
    console.log('| | small | large | large / small |\n| --- | --- | --- | --- |');
    const row = (label, a, b, digits = 0) => console.log(`| ${label} | ${fmt(a, digits)} | ${fmt(b, digits)} | ${fmt(b / a, 2)} |`);
    row('start-up after the SQL fill, spawn to first healthy answer (ms)', small.starts[0], large.starts[0]);
    row('start-up again (ms)', small.starts[1], large.starts[1]);
    row('RSS right after the first start (MB)', small.rssAfterStart, large.rssAfterStart, 1);
    row('RSS right after the second start (MB)', small.rssAfterRestart, large.rssAfterRestart, 1);
    row(`users page at offset ${fmt(small.input.offset)} / ${fmt(large.input.offset)}, once (ms)`, small.input.offsetMs, large.input.offsetMs, 1);

    console.log('\n## Hot routes\n');
    console.log(
      `| route | endpoint | small req/s | large req/s | large / small rate | small server CPU / request (µs) | large | small / large CPU | p99 small / large (ms) | non-2xx (small, large) | peak RSS small / large (MB) |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |`,
    );
    const notes = [];
    for (const route of ROUTES.filter((r) => !opts.only || opts.only.split(',').includes(r.name))) {
      const rounds = [];
      for (let round = 0; round < ROUNDS; round++) rounds.push(await measurePair([small, large], route));
      // The round whose rate ratio is the median; its figures are the row.
      const ratios = rounds.map(([s, l]) => l.rate / s.rate);
      const [s, l] = rounds[ratios.indexOf(median(ratios))];
      const cpuRatios = rounds.map(([s, l]) => s.cpuPerRequest / l.cpuPerRequest);
      console.log(
        `| \`${route.name}\` | ${route.endpoint} | ${fmt(s.rate)} | ${fmt(l.rate)} | **${fmt(l.rate / s.rate, 2)}** | ${fmt(s.cpuPerRequest)} | ${fmt(l.cpuPerRequest)} | **${fmt(median(cpuRatios), 2)}** | ${fmt(s.p99)} / ${fmt(l.p99)} | ${rounds.reduce((a, [s]) => a + s.bad, 0)}, ${rounds.reduce((a, [, l]) => a + l.bad, 0)} | ${fmt(s.peak)} / ${fmt(l.peak)} |`,
      );
      notes.push(`${route.name}: large / small rate ${ratios.map((r) => fmt(r, 2)).join(', ')}; small / large CPU per request ${cpuRatios.map((r) => fmt(r, 2)).join(', ')} (rates small ${rounds.map(([s]) => fmt(s.rate)).join(', ')}, large ${rounds.map(([, l]) => fmt(l.rate)).join(', ')}; load average ${rounds.map(([s]) => s.load).join(', ')})`);
    }
    console.log('');
    for (const note of notes) console.log(`- ${note}`);

    console.log(`\n## Jobs against the large database: max latency of other requests (1 connection each, loads of ${opts['stall-seconds']} s until the job ends)\n`);
    console.log('| while | seconds loaded | health requests | health p99 / max (ms) | me requests | me p99 / max (ms) | the job | load average |\n| --- | --- | --- | --- | --- | --- | --- | --- |');
    const period = new Date().toISOString().slice(0, 7);
    const jobs = [
      ['nothing else', undefined, () => ''],
      ['GET /v1/billing back to back (the server counts monthly active users)', () => billingLoop(large, Math.max(1, Number(opts["stall-seconds"]) - 3)), (j) => `${j.requests} requests, p50 ${fmt(j.p50, 1)} ms, max ${fmt(j.max, 1)} ms; MAU ${fmt(j.mau)}`],
      [`billing run in the server (the hourly run's code, period ${period})`, () => large.server.runJob('billing', period), (j) => `${fmt(j.seconds, 2)} s, ${j.result.charges.length} charges; the server's longest event-loop stall meanwhile **${fmt(j.max_ms, 1)} ms**`],
      ['clean-up in the server (the 10-minute run\'s code)', () => large.server.runJob('prune'), (j) => `${fmt(j.seconds, 2)} s, ${fmt(j.result.sessions)} sessions and ${fmt(j.result.active_users)} active-user marks deleted; the server's longest event-loop stall meanwhile **${fmt(j.max_ms, 1)} ms**`],
    ];
    // The jobs run in the large server's own process (bench/lib/job-server.mjs: the same serve(), jobs on call).
    await large.server.stop();
    large.server = await startServer({ db: DB, pgAdminUrl: opts['pg-url'], database: large.database, jobs: true });
    large.input = await routeInputs(large);
    for (const [label, job, describe] of jobs) {
      const r = await underJob(large, job);
      console.log(`| ${label} | ${r.seconds} | ${fmt(r.health.requests)} | ${fmt(r.health.p99)} / **${fmt(r.health.max)}** | ${fmt(r.me.requests)} | ${fmt(r.me.p99)} / **${fmt(r.me.max)}** | ${r.job ? describe(r.job) : ''} | ${r.load} |`);
    }

    console.log(`\n## A query too broad to bound (the \`sparse\` table, ${fmt(large.size.sparseRows)} rows, flag = 1 on the 20,000 of highest rank)\n`);
    for (const dir of ['asc', 'desc']) {
      const t0 = performance.now();
      const res = await fetch(`${large.server.url}/v1/tables/${large.fx.tables.sparse.table_id}/rows/query`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${large.fx.secretKey}` },
        body: JSON.stringify({ filter: { field: 'flag', op: 'eq', value: 1 }, sort: { field: 'rank', dir }, limit: 50 }),
      });
      const body = await res.json();
      const ms = performance.now() - t0;
      const shown = res.status === 200 ? `${body.rows.length} rows, ranks ${body.rows[0]?.data.rank}..${body.rows.at(-1)?.data.rank}` : JSON.stringify(body);
      console.log(`- \`{"filter": {"field": "flag", "op": "eq", "value": 1}, "sort": {"field": "rank", "dir": "${dir}"}, "limit": 50}\` → **${res.status}** in ${fmt(ms, 1)} ms: ${shown}`);
    }
    console.log(`\nfinished ${new Date().toISOString()}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    for (const side of sides) {
      await side.server.stop();
      if (opts.keep) console.log(`kept ${side.size.label}: DATABASE_URL=${side.database.env.DATABASE_URL} (cwd ${side.database.dir})`);
      else await side.database.drop();
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
