import { createRequire } from 'node:module';
import type { Pool } from 'pg';
import type { StoreTimeouts } from './db.js';
import { timestamptzText } from './tables-dialect.js';

/** node-postgres is loaded only by a process that uses PostgreSQL (about 15 MB otherwise spent for nothing on SQLite). */
let loaded: typeof import('pg') | undefined;
function loadPg(): typeof import('pg') {
  if (!loaded) {
    loaded = createRequire(import.meta.url)('pg') as typeof import('pg');
    // PostgreSQL's int8 (count(*), sums) arrives as text by default; our values fit a double.
    loaded.types.setTypeParser(20, (value) => Number(value));
    // timestamptz (custom-table dates only) as ISO text: the records show it so, and a Date per value costs.
    loaded.types.setTypeParser(1184, timestamptzText(loaded.types.getTypeParser(1184) as (text: string) => Date));
  }
  return loaded;
}

/**
 * SQL texts run as named prepared statements (text → name): PostgreSQL parses and plans each once per
 * connection instead of on every call (the /v1/me join: 425 µs → 143 µs a round trip, most of it the
 * planner's CPU on the database side). Registered by compiledQuery (store/compiled.ts) for the hot
 * queries, never for a text that selects `*` (see store/columns.ts). Names are unique per text.
 */
const preparedNames = new Map<string, string>();
export function prepareOnPostgres(text: string): void {
  if (text.includes('*')) throw new Error('a prepared statement lists its columns (store/columns.ts)');
  if (!preparedNames.has(text)) preparedNames.set(text, `gh_${preparedNames.size + 1}`);
}

/** `client.query(text, values?, callback?)` with a registered text becomes a named query; anything else stays as it is. */
function asPrepared(args: unknown[]): unknown[] {
  const [text, values, ...rest] = args;
  const name = typeof text === 'string' ? preparedNames.get(text) : undefined;
  if (!name) return args;
  return typeof values === 'function' ? [{ name, text }, values, ...rest] : [{ name, text, values }, ...rest];
}

/** What a query that outlived the client-side read timeout is rejected with (node-postgres' message). */
export const QUERY_READ_TIMEOUT = 'Query read timeout';

/**
 * The PostgreSQL pool, with every way of hanging or crashing closed:
 * - every client gets an 'error' listener from the moment it connects until it is gone. A server restart
 *   terminates checked-out clients too (a request between two queries of a transaction); without a
 *   listener that 'error' event is unhandled and kills the process. The request in flight fails on its
 *   next query; the pool drops the broken client on release and the next request reconnects.
 * - statement_timeout on the server and query_timeout on the client (a server that stopped answering
 *   never cancels anything), the client's a little later so a live server cancels first and cleanly.
 * - a client whose query timed out on the client side may still have that query running: its socket is
 *   destroyed so the pool drops it instead of handing out a connection with a stuck query.
 * - connectionTimeoutMillis bounds both opening a connection and waiting for a free one.
 */
export function openPostgresPool(url: string, timeouts: StoreTimeouts): Pool {
  const pg = loadPg();
  // queryTimeoutMs 0: no query timeouts (migrations, which may legitimately run long).
  const bounded = timeouts.queryTimeoutMs > 0;
  const pool = new pg.Pool({
    connectionString: url,
    max: 20,
    connectionTimeoutMillis: timeouts.poolTimeoutMs,
    ...(bounded && {
      statement_timeout: timeouts.queryTimeoutMs,
      query_timeout: timeouts.queryTimeoutMs + 1_000,
      idle_in_transaction_session_timeout: timeouts.queryTimeoutMs * 6,
    }),
  });
  // An idle client's error: the pool removes the client; the next query reconnects.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const result = query(...asPrepared(args));
      if (result && typeof (result as Promise<unknown>).catch === 'function') {
        (result as Promise<unknown>).catch((error: Error) => {
          if (error?.message === QUERY_READ_TIMEOUT) (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
        });
      }
      return result;
    };
  });
  return pool;
}
