#!/usr/bin/env node
// A user's export is streamed (src/services/accounts/user-export.ts): the server's peak RSS while it exports a user
// with 100,000 rows should be about what it is for a user with 50,000, and not far above a user with 100.
// Builds the users' rows by SQL, exports each over HTTP (the reply read and dropped as it arrives), and
// prints the server's peak RSS during each export (VmHWM, reset before each; bench/README.md, "Export
// memory"). A benchmark, not a test.
//
//   npm run build && node bench/export-memory.mjs [--db sqlite|postgres] [--rows 100000]
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { startServer } from './lib/server.mjs';

const { values: opts } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    rows: { type: 'string', default: '100000' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const hex = (id) => id.replace(/-/g, '');
const server = await startServer({ db: opts.db, pgAdminUrl: opts['pg-url'] });
try {
  const { tenant_id } = await server.cli(['tenant', 'create', '--name', 'Export']);
  const app = await server.cli(['app', 'create', '--tenant', tenant_id, '--name', 'Export']);
  const secret = { authorization: `Bearer ${app.secret_key}`, 'content-type': 'application/json' };
  const post = async (path, body) => {
    const res = await fetch(server.url + path, { method: 'POST', headers: secret, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const table = await post('/v1/tables', { name: 'notes', columns: [{ name: 'title', type: 'text' }, { name: 'n', type: 'int' }, { name: 'meta', type: 'json' }] });
  const col = Object.fromEntries(table.columns.map((c) => [c.name, `c_${hex(c.column_id)}`]));
  const small = await post('/v1/users', { email: `small-${Date.now()}@example.com` });
  const half = await post('/v1/users', { email: `half-${Date.now()}@example.com` });
  const big = await post('/v1/users', { email: `big-${Date.now()}@example.com` });

  // The rows, straight into the data table (about 250 bytes of JSON each in the export).
  const rowsOf = (userId, count) =>
    Array.from({ length: count }, (_, i) => {
      const now = new Date(Date.UTC(2026, 0, 1) + i).toISOString();
      return [randomUUID(), userId, now, now, 200, `note ${i} ${'x'.repeat(120)}`, i, JSON.stringify({ tags: ['a', 'b'], i })];
    });
  const t = `t_${hex(table.table_id)}`;
  const insertSql = `insert into ${t} (row_id, user_id, created_at, updated_at, size_bytes, ${col.title}, ${col.n}, ${col.meta})`;
  const fill = async (rows) => {
    if (opts.db === 'sqlite') {
      const db = new SQLite(server.databaseUrl.slice('sqlite:'.length));
      db.pragma('busy_timeout = 15000');
      const stmt = db.prepare(`${insertSql} values (?, ?, ?, ?, ?, ?, ?, ?)`);
      db.transaction(() => rows.forEach((r) => stmt.run(...r))).immediate();
      db.close();
      return;
    }
    const pool = new pg.Pool({ connectionString: server.databaseUrl, max: 4 });
    for (let i = 0; i < rows.length; i += 1000) {
      const chunk = rows.slice(i, i + 1000);
      const tuples = chunk.map((_, j) => `(${Array.from({ length: 8 }, (_, k) => `$${j * 8 + k + 1}`).join(', ')})`);
      await pool.query(`${insertSql} values ${tuples.join(', ')}`, chunk.flat());
    }
    await pool.query(`analyze ${t}`);
    await pool.end();
  };
  await fill(rowsOf(small.id, 100));
  await fill(rowsOf(half.id, Number(opts.rows) / 2));
  await fill(rowsOf(big.id, Number(opts.rows)));

  /** Exports the user, reading and dropping the reply as it comes; the server's peak RSS during it. */
  const exportOf = async (userId) => {
    server.resetPeak();
    const before = server.rss();
    const started = performance.now();
    const res = await fetch(`${server.url}/v1/users/${userId}/export`, { headers: { authorization: secret.authorization } });
    if (!res.ok) throw new Error(`export: ${res.status}`);
    let bytes = 0;
    let tail = '';
    for await (const chunk of res.body) {
      bytes += chunk.length;
      tail = (tail + Buffer.from(chunk).toString('utf8')).slice(-2);
    }
    if (tail !== ']}') throw new Error('the export did not end as a whole document');
    return { seconds: (performance.now() - started) / 1000, mb: bytes / 1024 ** 2, before: before?.rss, peak: server.rss()?.peak };
  };
  await exportOf(small.id); // warm-up: the route's first run compiles its code paths
  const fmt = (n, d = 1) => (n === undefined ? 'n/a' : n.toFixed(d));
  console.log(`# gatehouse export memory: ${opts.db}, node ${process.version}\n`);
  console.log('| export | rows | document (MB) | seconds | RSS before (MB) | peak RSS during (MB) |\n| --- | --- | --- | --- | --- | --- |');
  // A streamed export's peak does not grow with the rows: half the rows, then all of them, then all again.
  for (const [label, user, rows] of [['small', small, 100], ['half', half, Number(opts.rows) / 2], ['big', big, Number(opts.rows)], ['big again', big, Number(opts.rows)], ['small again', small, 100]]) {
    const r = await exportOf(user.id);
    console.log(`| ${label} | ${rows} | ${fmt(r.mb, 2)} | ${fmt(r.seconds, 2)} | ${fmt(r.before)} | ${fmt(r.peak)} |`);
  }
} finally {
  await server.stop();
}
