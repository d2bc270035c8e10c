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

/**
 * A text built per request that is still worth preparing starts with this comment (a custom-table page,
 * store/repos/custom-rows-query.ts: the planner's work on its checks costs PostgreSQL as much as running
 * it). Such texts are many, so each connection keeps its own few as named statements (ConnectionStatements).
 * A marked text must name everything its result depends on that DDL can change (the table's schema
 * version): a text prepared before a change is then never the text sent after it.
 */
export const PREPARE_PER_CONNECTION = '/* prepared */ ';

/** Named statements one connection keeps for marked texts; the least recently used is deallocated first. */
export const STATEMENTS_PER_CONNECTION = 32;

type Query = (...args: unknown[]) => unknown;
type ParsedStatements = { connection: { parsedStatements: Record<string, string> } };

/** A connection's named statements for marked texts (text → name, oldest use first). */
class ConnectionStatements {
  private readonly names = new Map<string, string>();
  private counter = 0;

  constructor(
    private readonly query: Query,
    private readonly client: ParsedStatements,
  ) {}

  nameOf(text: string): string {
    let name = this.names.get(text);
    if (name !== undefined) {
      this.names.delete(text);
    } else {
      if (this.names.size >= STATEMENTS_PER_CONNECTION) this.drop(this.names.keys().next().value!);
      name = `gh_c${++this.counter}`;
    }
    this.names.set(text, name);
    return name;
  }

  /**
   * Deallocates the text's statement: queued ahead of whatever the connection runs next. Names are never
   * reused, so a failure only leaves the statement allocated until the connection closes.
   */
  drop(text: string): void {
    const name = this.names.get(text);
    if (name === undefined) return;
    this.names.delete(text);
    Promise.resolve(this.query(`deallocate ${name}`)).then(
      () => delete this.client.connection.parsedStatements[name],
      () => {},
    );
  }
}

/**
 * `client.query(text, values?, callback?)` with a registered or marked text becomes a named query;
 * anything else stays as it is. Answers the marked text it named, if any.
 */
function asPrepared(args: unknown[], statements: ConnectionStatements): { args: unknown[]; marked?: string } {
  const [text, values, ...rest] = args;
  if (typeof text !== 'string') return { args };
  const marked = text.startsWith(PREPARE_PER_CONNECTION) ? text : undefined;
  const name = marked ? statements.nameOf(text) : preparedNames.get(text);
  if (!name) return { args };
  return { args: typeof values === 'function' ? [{ name, text }, values, ...rest] : [{ name, text, values }, ...rest], marked };
}

/**
 * "cached plan must not change result type": a named statement whose table changed shape since it was
 * prepared fails so on every use; it is dropped (its caller reloads what it built the text from).
 */
const PLAN_CHANGED = '0A000';

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
    const query = client.query.bind(client) as Query;
    const statements = new ConnectionStatements(query, client as unknown as ParsedStatements);
    (client as unknown as { query: Query }).query = (...args: unknown[]) => {
      const prepared = asPrepared(args, statements);
      const result = query(...prepared.args);
      if (result && typeof (result as Promise<unknown>).catch === 'function') {
        (result as Promise<unknown>).catch((error: Error & { code?: string }) => {
          if (error?.message === QUERY_READ_TIMEOUT) (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
          if (prepared.marked && error?.code === PLAN_CHANGED) statements.drop(prepared.marked);
        });
      }
      return result;
    };
  });
  return pool;
}
