// The ceiling of the custom-table query over HTTP: a bare Fastify 5 app, as a process of its own like the
// real server, that answers every POST with the same SQL (fixed arguments) run on the same database and
// its rows as JSON, and does nothing else (no key check, no table metadata, no validation, no cursor).
// What Gatehouse adds to a query request is the difference between this and the real route.
// Prints `listening <port>` when ready.
//
//   node bench/lib/tables-ceiling-server.mjs <port> <sqlite:FILE | postgres://...> <sql with ? or $n> <args as JSON>
import Fastify from 'fastify';

const [port, url, text, argsJson] = process.argv.slice(2);
const args = JSON.parse(argsJson);
let query;
if (url.startsWith('sqlite:')) {
  const { default: SQLite } = await import('better-sqlite3');
  const db = new SQLite(url.slice('sqlite:'.length), { readonly: true });
  const statement = db.prepare(text);
  query = async () => statement.all(...args);
} else {
  const { default: pg } = await import('pg');
  // As many connections as the server's pool (store/pg-pool.ts).
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  query = async () => (await pool.query(text, args)).rows;
}

const app = Fastify({ logger: false });
app.post('/query', async () => {
  const rows = await query();
  return { rows: rows.slice(0, 50), next_cursor: null };
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
console.log(`listening ${port}`);
