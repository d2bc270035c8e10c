#!/usr/bin/env node
// A migration of issue 55 under load (bench/README.md, "A migration under load"): migration 0048's index
// (event_counts_day, built CONCURRENTLY on PostgreSQL) on a PostgreSQL database whose event_counts holds
// --rows rows (default 1,000,000), while a node of the previous release (.ci/previous-release, built by
// test/contract/rolling-deploy.test.ts into ~/.cache/gatehouse-releases) serves that database under load:
// PATCH /v1/users/{id} (a user.updated event each: an upsert into event_counts) and GET /v1/me, at once.
// After a warm-up window, three windows of --duration seconds each, the same load: nothing else running; `gatehouse migrate` of this
// build started a second in (0048 as it ships); and, for contrast, the same index built the plain way
// (CREATE INDEX in a transaction, as migrations did before 0048). The figures are the other node's latency
// percentiles in each window. A benchmark, not a test: nothing asserts on a timing.
//
//   npm run build && node bench/migration-load.mjs [--rows 1000000] [--duration 12] [--connections 10] [--earlier-bin PATH]
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { call, prepareFixtures } from './lib/fixtures.mjs';
import { runLoad } from './lib/load.mjs';
import { createDatabase, ROOT, runCli, startServer } from './lib/server.mjs';

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    duration: { type: 'string', default: '12' },
    connections: { type: 'string', default: '10' },
    'earlier-bin': { type: 'string' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const ROWS = Number(opts.rows);
const DURATION = Number(opts.duration);
const CONNECTIONS = Number(opts.connections);

function earlierBin() {
  if (opts['earlier-bin']) return opts['earlier-bin'];
  const pinned = execFileSync('cat', [join(ROOT, '.ci/previous-release')]).toString().trim();
  const commit = execFileSync('git', ['rev-parse', `${pinned}^{commit}`], { cwd: ROOT }).toString().trim();
  const bin = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'gatehouse-releases', commit, 'bin/gatehouse.js');
  if (!existsSync(bin)) throw new Error(`no build of ${pinned} at ${bin}: run test/contract/rolling-deploy.test.ts once (it builds it), or pass --earlier-bin`);
  return bin;
}

const database = await createDatabase({ db: 'postgres', pgAdminUrl: opts['pg-url'] });
const sql = new pg.Client({ connectionString: database.env.DATABASE_URL });
let server;
try {
  await runCli(database, ['migrate']);
  server = await startServer({ db: 'postgres', pgAdminUrl: opts['pg-url'], database, bin: earlierBin() });
  const fx = await prepareFixtures(server);
  await sql.connect();
  console.log(`filling event_counts with ${ROWS.toLocaleString('en-US')} rows ...`);
  await sql.query(`insert into event_counts (scope_id, day, type, slot, count)
    select 'scope-' || (i % 5000), to_char(date '2020-01-01' + (i / 5000)::int, 'YYYY-MM-DD'), 'user.updated', to_hex(i % 16), 1
    from generate_series(1, $1) as i`, [ROWS]);
  await sql.query('analyze event_counts');
  const undo0048 = async () => {
    await sql.query('drop index if exists event_counts_day');
    await sql.query("delete from kysely_migration where name = '0048-event-retention'");
  };
  await undo0048();

  const secret = { authorization: `Bearer ${fx.secretKey}`, 'content-type': 'application/json' };
  // 50 users, so the PATCHes do not all wait on one user's row.
  const users = [];
  for (let i = 0; i < 50; i++) users.push((await call(server, 'POST', '/v1/users', { body: { email: `load-${i}@example.com` }, headers: { authorization: secret.authorization }, expect: 201 })).id);
  const paths = users.map((id) => `/v1/users/${id}`);
  const loads = () =>
    Promise.all([
      runLoad({ url: server.url, connections: CONNECTIONS, duration: DURATION, method: 'PATCH', path: paths[0], paths, headers: secret, body: JSON.stringify({ public_metadata: { n: 1 } }) }),
      runLoad({ url: server.url, connections: CONNECTIONS, duration: DURATION, method: 'GET', path: '/v1/me', headers: { authorization: `Bearer ${fx.accessToken}`, 'x-publishable-key': fx.publishableKey } }),
    ]);
  const after = (seconds, work) => new Promise((resolve, reject) => setTimeout(() => work().then(resolve, reject), seconds * 1000));
  const timed = async (work) => {
    const started = performance.now();
    await work();
    return (performance.now() - started) / 1000;
  };

  // A first window warms the node (JIT, pool, caches) and is not reported.
  await loads();
  const windows = [];
  windows.push({ label: 'no migration', loads: await loads(), seconds: null });
  const [concurrently, migrated] = await Promise.all([loads(), after(1, () => timed(() => runCli(database, ['migrate'])))]);
  const valid = (await sql.query("select indisvalid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = 'event_counts_day'")).rows[0]?.indisvalid;
  windows.push({ label: `0048 by \`gatehouse migrate\` (CONCURRENTLY; index valid: ${valid})`, loads: concurrently, seconds: migrated });
  await undo0048();
  const [plain, built] = await Promise.all([loads(), after(1, () => timed(() => sql.query('begin; create index event_counts_day on event_counts (day); commit')))]);
  windows.push({ label: 'the same index, plain CREATE INDEX in a transaction', loads: plain, seconds: built });

  const ms = (n) => (n === undefined ? 'n/a' : `${Math.round(n)} ms`);
  console.log(`\n${ROWS.toLocaleString('en-US')} rows in event_counts, ${CONNECTIONS} connections per route, ${DURATION} s windows; the node under load runs the previous release`);
  console.log('| window | migration took | route | requests | non-2xx | p50 | p99 | p99.9 | max |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const w of windows) {
    for (const [route, run] of [['PATCH /v1/users/{id}', w.loads[0]], ['GET /v1/me', w.loads[1]]]) {
      const l = run.result.latency;
      console.log(`| ${w.label} | ${w.seconds === null ? '-' : `${w.seconds.toFixed(1)} s`} | ${route} | ${run.result.requests.total} | ${run.result.non2xx + run.result.errors} | ${ms(l.p50)} | ${ms(l.p99)} | ${ms(l.p99_9 ?? l.p999)} | ${ms(l.max)} |`);
    }
  }
} finally {
  await sql.end().catch(() => {});
  await server?.stop();
  await database.drop();
}
