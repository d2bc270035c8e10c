import { createRequire } from 'node:module';
import type { Pool } from 'pg';
import type { StoreTimeouts } from './timeouts.js';
import { timestamptzText } from './tables-dialect.js';

/** node-postgres is loaded only by a process that uses PostgreSQL (about 15 MB otherwise spent for nothing on SQLite). */
let loaded: typeof import('pg') | undefined;
/** node-postgres' own mapping of a JavaScript value to a parameter's text (loaded with it). */
let prepareValue: (value: unknown) => unknown;
function loadPg(): typeof import('pg') {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    loaded = require('pg') as typeof import('pg');
    prepareValue = (require('pg/lib/utils') as { prepareValue: (value: unknown) => unknown }).prepareValue;
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
function asPrepared(args: unknown[], statements: ConnectionStatements): { args: unknown[]; marked?: string; execution?: NamedExecution } {
  const [text, values, ...rest] = args;
  if (typeof text !== 'string') return { args };
  const marked = text.startsWith(PREPARE_PER_CONNECTION) ? text : undefined;
  const name = marked ? statements.nameOf(text) : preparedNames.get(text);
  if (!name) return { args };
  // A registered text with its values and no callback (how Kysely runs it): the lean execution.
  if (!marked && Array.isArray(values) && rest.length === 0) return { args, execution: new NamedExecution(name, text, values) };
  return { args: typeof values === 'function' ? [{ name, text }, values, ...rest] : [{ name, text, values }, ...rest], marked };
}

/** What a registered text's rows look like: column names and their parsers, from its first RowDescription. */
interface ResultShape {
  names: string[];
  parsers: ((text: string) => unknown)[];
}
/** Registered text → its result shape, learnt once (any connection): later executions skip Describe. */
const shapes = new Map<string, ResultShape>();
const COMMAND_TAG = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/;

type Connection = {
  stream: { cork(): void; uncork(): void };
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  parse(query: { text: string; name: string; types: unknown[] }): void;
  bind(config: { portal: string; statement: string; values: unknown[]; binary: boolean; valueMapper: (value: unknown) => unknown }): void;
  describe(message: { type: 'P' | 'S'; name: string }): void;
  execute(config: { portal: string; rows: number }): void;
  close(message: { type: 'P' | 'S'; name: string }): void;
  sync(): void;
};
type Field = { name: string; dataTypeID: number; format: string };
type Callback = (error: Error | null, result?: { command: string | null; rowCount: number | null; rows: Record<string, unknown>[] }) => void;

/**
 * One execution of a registered text's named statement, submitted to node-postgres as a custom query
 * (its Submittable interface, as pg-cursor is). It does what pg's Query does for a named statement,
 * without what the hot path pays for and never uses: no Describe once the text's result shape is known
 * (PostgreSQL then sends no RowDescription to parse), no per-query Result that rebuilds the column
 * parsers and clones a dictionary-mode object for every row, no EventEmitter, no copy of the config.
 * About a seventh of the event loop's work on a PostgreSQL GET /v1/me (bench/README.md).
 * A result shape cannot change under a running server: registered texts are the service's own fixed
 * queries on tables only migrations alter, and a statement whose result type changed fails with 0A000,
 * which also forgets the shape.
 */
class NamedExecution {
  callback: Callback | undefined;
  private shape: ResultShape | undefined;
  private readonly rows: Record<string, unknown>[] = [];
  private command: string | null = null;
  private rowCount: number | null = null;

  constructor(
    readonly name: string,
    readonly text: string,
    private readonly values: unknown[],
  ) {
    this.shape = shapes.get(text);
  }

  submit(connection: Connection): null {
    connection.stream.cork();
    try {
      if (connection.parsedStatements[this.name] === undefined && connection.submittedNamedStatements[this.name] === undefined) {
        connection.parse({ text: this.text, name: this.name, types: [] });
        connection.submittedNamedStatements[this.name] = this.text;
      }
      try {
        connection.bind({ portal: '', statement: this.name, values: this.values, binary: false, valueMapper: prepareValue });
      } catch (error) {
        connection.close({ type: 'S', name: this.name });
        connection.sync();
        this.handleError(error as Error);
        return null;
      }
      if (!this.shape) connection.describe({ type: 'P', name: '' });
      connection.execute({ portal: '', rows: 0 });
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
    return null;
  }

  handleRowDescription(message: { fields: Field[] }): void {
    const { types } = loadPg();
    const shape: ResultShape = { names: [], parsers: [] };
    for (const field of message.fields) {
      shape.names.push(field.name);
      shape.parsers.push(types.getTypeParser(field.dataTypeID, 'text') as (text: string) => unknown);
    }
    this.shape = shape;
    shapes.set(this.text, shape);
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    const { names, parsers } = this.shape!;
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) {
      const raw = message.fields[i];
      row[names[i]!] = raw === null || raw === undefined ? null : parsers[i]!(raw);
    }
    this.rows.push(row);
  }

  handleCommandComplete(message: { text: string }): void {
    const match = COMMAND_TAG.exec(message.text);
    if (!match) return;
    this.command = match[1]!;
    const count = match[3] ?? match[2];
    if (count !== undefined) this.rowCount = Number(count);
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleReadyForQuery(): void {
    this.finish(null, { command: this.command, rowCount: this.rowCount, rows: this.rows });
  }

  handleError(error: Error & { code?: string }): void {
    if (error?.code === PLAN_CHANGED) shapes.delete(this.text);
    this.finish(error);
  }

  /** Answers once: a Bind that failed is answered at once, and its Sync's ReadyForQuery comes after. */
  private finish(...answer: Parameters<Callback>): void {
    const callback = this.callback;
    this.callback = undefined;
    callback?.(...answer);
  }
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
      let result: unknown;
      if (prepared.execution) {
        const execution = prepared.execution;
        result = new Promise((resolve, reject) => {
          execution.callback = (error, rows) => (error ? reject(error) : resolve(rows));
        });
        query(execution);
      } else {
        result = query(...prepared.args);
      }
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
