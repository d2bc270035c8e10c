#!/usr/bin/env node
// Custom-table benchmark: one table of --rows rows (default 100,000) on SQLite or PostgreSQL.
//   1. insert throughput over HTTP (POST .../rows, 32 connections, --insert-seconds);
//   2. the rest of the rows written straight into the data table (and the usage row), to reach --rows fast;
//   3. query latency over HTTP: filter `gte` on an int column + sort `desc` on a date column + page of 50,
//      the first page and a deep page (by cursor), at 8 and 32 connections;
//   4. beside each, the same SQL run directly on the database from this process (the ceiling), and the
//      same SQL answered over HTTP by a bare Fastify process (bench/lib/tables-ceiling-server.mjs: what any
//      server in front of the database reaches on this machine);
//   5. EXPLAIN of that SQL (index use); on PostgreSQL also of the statement the server sends (the page inside
//      its table's schema-version check).
// A benchmark, not a test: nothing here asserts on timings. Figures go to bench/README.md.
//
//   npm run build && node bench/tables.mjs [--db sqlite|postgres] [--rows 100000] [--duration 10] [--insert-seconds 10] [--deep-pages 100]
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { call } from './lib/fixtures.mjs';
import { spawnListening } from './lib/ceilings.mjs';
import { runLoad } from './lib/load.mjs';
import { startServer } from './lib/server.mjs';
import { gatedJsonSegmentQuery } from '../dist/src/store/repos/custom-rows-query.js';

const { values: opts } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    rows: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '10' },
    'insert-seconds': { type: 'string', default: '10' },
    'deep-pages': { type: 'string', default: '100' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    'cpu-prof': { type: 'string' },
  },
});
const ROWS = Number(opts.rows);
const DURATION = Number(opts.duration);
const SCORE_MIN = 500_000; // `gte` keeps about half the rows
const fmt = (n, digits = 1) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const hex = (uuid) => uuid.replace(/-/g, '');

// Deterministic pseudo-random values (xorshift), so runs are comparable.
let seed = 42;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const randomRow = () => ({
  score: Math.floor(rand() * 1_000_000),
  due: new Date(Date.UTC(2020, 0, 1) + Math.floor(rand() * 10 * 365 * 86_400_000)).toISOString(),
  title: `item ${Math.floor(rand() * 1e9).toString(36)}`,
});

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The same query straight on the database: `concurrency` loops for `seconds`; ops/s, p50, p99 in ms. */
async function direct(run, concurrency, seconds) {
  const latencies = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await run();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { rate: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** bench/lib/tables-ceiling-server.mjs answering every POST /query with `text` run with `args`. */
function startCeiling(databaseUrl, text, args) {
  return spawnListening('tables-ceiling-server.mjs', [databaseUrl, text, JSON.stringify(args)]);
}

async function main() {
  console.log(`# gatehouse tables bench: ${opts.db}, ${ROWS} rows, ${DURATION} s per query run`);
  console.log(`machine: ${availableParallelism()} cores, Node ${process.version}; started ${new Date().toISOString()}; load average ${loadavg()[0].toFixed(1)}`);
  const server = await startServer({ db: opts.db, pgAdminUrl: opts['pg-url'], cpuProfDir: opts['cpu-prof'] });
  let closeDb = async () => {};
  try {
    const { tenant_id } = await server.cli(['tenant', 'create', '--name', 'B']);
    const app = await server.cli(['app', 'create', '--tenant', tenant_id, '--name', 'Bench', '--tables-limit-bytes', String(10 * 1024 ** 3)]);
    const auth = { authorization: `Bearer ${app.secret_key}` };
    const table = await call(server, 'POST', '/v1/tables', {
      headers: auth,
      expect: 201,
      body: { name: 'tasks', columns: [{ name: 'score', type: 'int' }, { name: 'due', type: 'date' }, { name: 'title', type: 'text' }] },
    });
    const col = Object.fromEntries(table.columns.map((c) => [c.name, `c_${hex(c.column_id)}`]));
    const t = `t_${hex(table.table_id)}`;

    // 1. Inserts over HTTP. Every load runs in a fresh process of its own (bench/lib/load.mjs), each request
    // with the next of these bodies.
    const insertSeconds = Number(opts['insert-seconds']);
    const bodies = Array.from({ length: Math.max(1000, insertSeconds * 6000) }, () => JSON.stringify({ data: randomRow() }));
    const { result: insert } = await runLoad({
      url: server.url,
      connections: 32,
      duration: insertSeconds,
      method: 'POST',
      path: `/v1/tables/${table.table_id}/rows`,
      headers: { ...auth, 'content-type': 'application/json' },
      bodies,
      exhaustedBody: bodies[0],
    });
    const inserted = insert['2xx'];
    console.log(`\n| measure | rate | p50 (ms) | p99 (ms) | non-2xx |\n| --- | --- | --- | --- | --- |`);
    console.log(`| insert over HTTP, 32 connections | ${fmt(insert.requests.average)} rows/s | ${fmt(insert.latency.p50)} | ${fmt(insert.latency.p99)} | ${insert.non2xx + insert.errors} |`);

    // 2. Fill up to ROWS directly (same columns, sizes counted into the usage row as the service would).
    const dbUrl = server.databaseUrl;
    let query;
    let explain;
    let explainChecked;
    let queryChecked;
    const fill = [];
    for (let i = inserted; i < ROWS; i++) {
      const data = randomRow();
      const now = new Date(Date.UTC(2026, 0, 1) + i).toISOString();
      fill.push([crypto.randomUUID(), null, now, now, Buffer.byteLength(JSON.stringify(data)), data.score, data.due, data.title]);
    }
    const filledBytes = fill.reduce((sum, r) => sum + r[4], 0);
    // What the server runs for the first page: on PostgreSQL one scan over values and nulls (its own null
    // order is the contract's); on SQLite the values segment (after an empty null segment, not repeated here).
    const firstSql = (p) => `select * from ${t} where ${col.score} >= ${p(1)}${opts.db === 'sqlite' ? ` and ${col.due} is not null` : ''} order by ${col.due} desc, row_id desc limit 51`;
    const deepSql = (p) => `select * from ${t} where ${col.score} >= ${p(1)} and (${col.due}, row_id) < (${p(2)}, ${p(3)}) order by ${col.due} desc, row_id desc limit 51`;
    if (opts.db === 'sqlite') {
      const db = new SQLite(dbUrl.slice('sqlite:'.length));
      db.pragma('busy_timeout = 15000');
      const stmt = db.prepare(`insert into ${t} (row_id, user_id, created_at, updated_at, size_bytes, ${col.score}, ${col.due}, ${col.title}) values (?, ?, ?, ?, ?, ?, ?, ?)`);
      db.transaction(() => {
        for (const r of fill) stmt.run(...r);
        db.prepare('update custom_table_usage set used_bytes = used_bytes + ? where app_id = ?').run(filledBytes, app.app_id);
      }).immediate();
      const q = { first: db.prepare(firstSql(() => '?')), deep: db.prepare(deepSql(() => '?')) };
      query = async (kind, args) => q[kind].all(...args);
      explain = async (kind, args) => db.prepare(`explain query plan ${kind === 'first' ? firstSql(() => '?') : deepSql(() => '?')}`).all(...args).map((r) => r.detail).join('\n');
      closeDb = async () => db.close();
    } else {
      const pool = new pg.Pool({ connectionString: dbUrl, max: 32 });
      for (let i = 0; i < fill.length; i += 1000) {
        const chunk = fill.slice(i, i + 1000);
        const params = chunk.flat();
        const tuples = chunk.map((_, j) => `(${Array.from({ length: 8 }, (_, k) => `$${j * 8 + k + 1}`).join(', ')})`);
        await pool.query(`insert into ${t} (row_id, user_id, created_at, updated_at, size_bytes, ${col.score}, ${col.due}, ${col.title}) values ${tuples.join(', ')}`, params);
      }
      await pool.query('update custom_table_usage set used_bytes = used_bytes + $1 where app_id = $2', [filledBytes, app.app_id]);
      await pool.query(`analyze ${t}`);
      const text = { first: firstSql((n) => `$${n}`), deep: deepSql((n) => `$${n}`) };
      query = async (kind, args) => (await pool.query(text[kind], args)).rows;
      explain = async (kind, args) => (await pool.query(`explain (analyze, costs off) ${text[kind]}`, args)).rows.map((r) => r['QUERY PLAN']).join('\n');
      // As the server sends it: the page gated on its table's schema-version check and, for a secret key the
      // node has seen before, the key's check, each row written as its JSON record
      // (src/store/repos/custom-rows-query.ts, gatedJsonSegmentQuery).
      const version = (await pool.query('select schema_version from custom_tables where id = $1', [table.table_id])).rows[0].schema_version;
      const keyHash = createHash('sha256').update(app.secret_key).digest('hex');
      // The server's own builder (dist/).
      const columnId = Object.fromEntries(table.columns.map((c) => [c.name, c.column_id]));
      const jsonColumns = table.columns.map((c) => ({ id: c.column_id, name: c.name, type: c.type }));
      const checked = (kind, args) => {
        const check = { appId: app.app_id, schemaVersion: Number(version), secretKey: { hash: keyHash, now: new Date().toISOString() } };
        const conditions = [{ op: 'gte', field: { kind: 'column', columnId: columnId.score }, value: args[0] }];
        const sort = { kind: 'column', columnId: columnId.due };
        const segment = kind === 'first' ? { sort, dir: 'desc', part: 'all', limit: 51 } : { sort, dir: 'desc', part: 'values', after: { value: args[1], rowId: args[2] }, limit: 51 };
        const query = gatedJsonSegmentQuery(table.table_id, check, jsonColumns, conditions, undefined, segment);
        return { text: query.sql, values: query.parameters };
      };
      explainChecked = async (kind, args) => {
        const { text, values } = checked(kind, args);
        return (await pool.query(`explain (analyze, costs off, summary) ${text}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n');
      };
      // The server's statement straight from the bench process, parsed and planned each time as the server
      // sends it, and as a named prepared statement (parsed once per connection) for comparison.
      queryChecked = async (kind, args, name) => (await pool.query({ ...checked(kind, args), ...(name && { name: `${name}_${kind}` }) })).rows;
      closeDb = () => pool.end();
    }

    // 3. A deep cursor: walk --deep-pages pages first.
    const body = { filter: { field: 'score', op: 'gte', value: SCORE_MIN }, sort: { field: 'due', dir: 'desc' }, limit: 50 };
    let cursor = null;
    for (let i = 0; i < Number(opts['deep-pages']); i++) {
      const page = await call(server, 'POST', `/v1/tables/${table.table_id}/rows/query`, { headers: auth, body: { ...body, cursor } });
      cursor = page.next_cursor;
    }
    // The cursor's payload is readable (it is MACed, not encrypted): the direct query seeks to the same place.
    const [, , , , , deepValue, deepRowId] = JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString());
    const args = { first: [SCORE_MIN], deep: [SCORE_MIN, deepValue, deepRowId] };
    const placeholder = opts.db === 'sqlite' ? () => '?' : (n) => `$${n}`;

    // Calibration on a shared machine: the cheapest route (one trivial database query) under the same load.
    const { result: health } = await runLoad({ url: server.url, connections: 8, duration: DURATION, method: 'GET', path: '/v1/health' });
    console.log(`| baseline GET /v1/health, 8 connections | ${fmt(health.requests.average)} req/s | ${fmt(health.latency.p50)} | ${fmt(health.latency.p99)} | ${health.non2xx + health.errors} |`);
    const ratios = [];
    for (const kind of ['first', 'deep']) {
      const payload = JSON.stringify(kind === 'first' ? body : { ...body, cursor });
      const ceiling = await startCeiling(dbUrl, kind === 'first' ? firstSql(placeholder) : deepSql(placeholder), args[kind]);
      try {
        for (const connections of [8, 32]) {
          const load = async (url, path, headers) =>
            (await runLoad({ url, connections, duration: DURATION, method: 'POST', path, headers: { ...headers, 'content-type': 'application/json' }, body: payload })).result;
          const cpuBefore = server.cpu();
          const result = await load(server.url, `/v1/tables/${table.table_id}/rows/query`, auth);
          const cpuAfter = server.cpu();
          const serverCpu = cpuBefore === undefined || cpuAfter === undefined ? '' : `, server CPU ${fmt(((cpuAfter - cpuBefore) * 1e6) / result.requests.total, 0)} µs/request`;
          const sqlDirect = await direct(() => query(kind, args[kind]), opts.db === 'sqlite' ? 1 : connections, Math.min(DURATION, 5));
          const bare = await load(ceiling.url, '/query', {});
          const label = `${kind === 'first' ? 'first page' : `deep page (after ${opts['deep-pages']} pages)`}, ${connections} connections`;
          console.log(`| query ${label}, HTTP${serverCpu} | ${fmt(result.requests.average)} req/s | ${fmt(result.latency.p50)} | ${fmt(result.latency.p99)} | ${result.non2xx + result.errors} |`);
          console.log(`| same SQL direct (${opts.db === 'sqlite' ? '1 synchronous loop' : `${connections} pool connections`}) | ${fmt(sqlDirect.rate)} queries/s | ${fmt(sqlDirect.p50, 2)} | ${fmt(sqlDirect.p99, 2)} | - |`);
          console.log(`| same SQL over HTTP, bare Fastify process | ${fmt(bare.requests.average)} req/s | ${fmt(bare.latency.p50)} | ${fmt(bare.latency.p99)} | ${bare.non2xx + bare.errors} |`);
          if (queryChecked) {
            for (const name of [undefined, 'prepared']) {
              const run = await direct(() => queryChecked(kind, args[kind], name), connections, Math.min(DURATION, 5));
              console.log(`| the server's statement direct${name ? ', named (prepared once per connection)' : ''} (${connections} pool connections) | ${fmt(run.rate)} queries/s | ${fmt(run.p50, 2)} | ${fmt(run.p99, 2)} | - |`);
            }
          }
          const pct = (a, b) => `${Math.round((100 * a) / b)} %`;
          ratios.push(`${label}: HTTP ${pct(result.requests.average, sqlDirect.rate)} of direct, ${pct(result.requests.average, bare.requests.average)} of bare Fastify; bare Fastify ${pct(bare.requests.average, sqlDirect.rate)} of direct`);
        }
      } finally {
        await ceiling.stop();
      }
    }
    console.log('');
    for (const line of ratios) console.log(`- ${line}`);
    console.log('');
    for (const kind of ['first', 'deep']) console.log(`EXPLAIN (${kind} page):\n\`\`\`\n${await explain(kind, args[kind])}\n\`\`\`\n`);
    if (explainChecked) {
      for (const kind of ['first', 'deep']) console.log(`EXPLAIN (${kind} page, as the server sends it):\n\`\`\`\n${await explainChecked(kind, args[kind])}\n\`\`\`\n`);
    }
    console.log(`finished ${new Date().toISOString()}; load average ${loadavg()[0].toFixed(1)}`);
  } finally {
    await closeDb();
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
