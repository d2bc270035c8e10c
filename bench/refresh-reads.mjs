// Rows a token refresh reads on PostgreSQL, table by table: one user with --sessions sessions in one app,
// then --count refreshes one at a time, pg_stat_user_tables (seq_scan, seq_tup_read, idx_scan,
// idx_tup_fetch) read before and after, and the same for an idle window of the same length (what the
// background jobs read meanwhile). Usage: node bench/refresh-reads.mjs [--sessions 3000] [--count 200]
import { parseArgs } from 'node:util';
import pg from 'pg';
import { call, prepareFixtures } from './lib/fixtures.mjs';
import { startServer } from './lib/server.mjs';

const { values: opts } = parseArgs({ options: { sessions: { type: 'string', default: '3000' }, count: { type: 'string', default: '200' }, 'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' } } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const server = await startServer({ db: 'postgres', pgAdminUrl: opts['pg-url'] });
const db = new pg.Client({ connectionString: server.databaseUrl });
await db.connect();
const tables = async () => {
  const { rows } = await db.query("SELECT relname, seq_scan, seq_tup_read, idx_scan, idx_tup_fetch FROM pg_stat_user_tables UNION ALL SELECT 'catalogs (pg_stat_sys_tables)', sum(seq_scan), sum(seq_tup_read), sum(idx_scan), sum(idx_tup_fetch) FROM pg_stat_sys_tables UNION ALL SELECT 'pg_stat_database (tup_returned, tup_fetched)', 0, tup_returned, 0, tup_fetched FROM pg_stat_database WHERE datname = current_database()");
  return new Map(rows.map((r) => [r.relname, r]));
};
const delta = (a, b, n) => {
  const out = [];
  for (const [name, row] of b) {
    const was = a.get(name) ?? {};
    const d = Object.fromEntries(['seq_scan', 'seq_tup_read', 'idx_scan', 'idx_tup_fetch'].map((k) => [k, (Number(row[k]) - Number(was[k] ?? 0)) / n]));
    if (Object.values(d).some((v) => v > 0)) out.push({ table: name, ...d });
  }
  return out.sort((x, y) => y.seq_tup_read + y.idx_tup_fetch - (x.seq_tup_read + x.idx_tup_fetch));
};
const flush = () => sleep(11_000); // a backend's counters reach pg_stat within 10 s of going idle (PostgreSQL 15)
try {
  if (process.env.AUTO_EXPLAIN) {
    // The plans of every statement the server runs, with their rows and buffers, in PostgreSQL's log.
    const name = new URL(server.databaseUrl).pathname.slice(1);
    for (const setting of ["session_preload_libraries = 'auto_explain'", 'auto_explain.log_min_duration = 0', 'auto_explain.log_analyze = on', 'auto_explain.log_buffers = on', 'auto_explain.log_nested_statements = on']) await db.query(`ALTER DATABASE ${name} SET ${setting}`);
    await db.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    await sleep(200); // the pool drops its idle connections as they end; its next ones load auto_explain
  }
  const fx = await prepareFixtures(server);
  const count = Number(opts.count);
  const tokens = [];
  const mint = async () => {
    while (tokens.length < Number(opts.sessions)) {
      const body = await call(server, 'POST', '/v1/sign_in_tokens', { body: { user_id: fx.userId }, headers: { authorization: `Bearer ${fx.secretKey}` } });
      tokens.push(body.refresh_token);
    }
  };
  await Promise.all(Array.from({ length: 8 }, mint));
  if (process.env.ANALYZE) await db.query('ANALYZE'); // without: the tables as a PostgreSQL without autovacuum has them
  const { rows: [n] } = await db.query('SELECT count(*)::int AS n FROM sessions');
  console.log(`sessions: ${n.n}; ${count} refreshes one at a time`);
  const window = async (label, work) => {
    await flush();
    const t0 = await tables();
    const started = Date.now();
    await work();
    const ms = Date.now() - started;
    await flush();
    console.log(`\n${label} (${ms} ms), per refresh:`);
    console.table(delta(t0, await tables(), count));
    return ms;
  };
  const ms = await window('refreshes', async () => {
    for (let i = 0; i < count; i++) {
      const res = await fetch(`${server.url}/v1/tokens/session`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-publishable-key': fx.publishableKey }, body: JSON.stringify({ refresh_token: tokens[i] }) });
      if (!res.ok) throw new Error(`refresh: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  });
  await window('idle window of the same length (background jobs only), per refresh-count', () => sleep(ms));
  if (process.env.KEEP) { console.log(server.databaseUrl); await sleep(Number(process.env.KEEP) * 1000); }
} finally {
  await db.end();
  await server.stop();
}
