import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, type DatabaseConnection, type Driver } from 'kysely';
import type { DatabaseConfig } from '../config/index.js';
import type { DialectName } from './dialect.js';
import { openPostgresPool, prepareOnPostgres } from './pg-pool.js';
import type { PoolStats } from '../observability/ops-metrics.js';
import { cachingStatements } from './statement-cache.js';
import { checkpointInBackground, logGuard, WAL_LIMIT_MB, walKeepBytes, type CheckpointEvents } from './sqlite-checkpoints.js';
import type { StoreTimeouts } from './timeouts.js';
import { setRetryPolicy } from './transaction.js';
import type { Database } from './types.js';

export type Db = Kysely<Database>;

export interface Store {
  db: Db;
  dialect: DialectName;
  /** Resolves when the database answers `select 1` (GET /v1/health), rejects when it cannot; concurrent calls may share one probe. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** PostgreSQL: the pool's connections now (gatehouse_db_pool_connections, gatehouse_db_pool_waiting). */
  poolStats?(): PoolStats;
}

/** SQLite's one connection, for statements that may run on it at once (see runNowOnSqlite). */
interface SqliteConnectionState {
  database: SQLite.Database;
  statements: ReturnType<typeof cachingStatements>;
  /** Kysely holds the connection (a transaction, or a query in flight through the driver). */
  held: boolean;
  /** Runs before each write transaction and each write outside one: holds the log under its cap (sqlite-checkpoints.ts, logGuard). */
  beforeWrite?: () => void;
}
const sqliteConnections = new WeakMap<object, SqliteConnectionState>();

/**
 * The SQLite dialect, adjusted three times:
 * - transactions start with BEGIN IMMEDIATE: they take the write lock up front and wait for it
 *   (busy_timeout). A deferred transaction that reads and then writes fails at once with SQLITE_BUSY when
 *   another process (the CLI beside the server, a second node on one file) wrote in between.
 * - it records whether Kysely holds the one connection, so runNowOnSqlite and sqliteTransaction know when
 *   they may run on it directly.
 * - its adapter says SQLite runs DDL in transactions (it does), so migrations run in one (store/migrations).
 */
function sqliteDriver(dialect: SqliteDialect, state: SqliteConnectionState): SqliteDialect {
  const createDriver = dialect.createDriver.bind(dialect);
  dialect.createDriver = (): Driver => {
    const driver = createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    const release = driver.releaseConnection.bind(driver);
    driver.acquireConnection = async () => {
      const connection = await acquire();
      state.held = true;
      return connection;
    };
    driver.releaseConnection = async (connection: DatabaseConnection) => {
      state.held = false;
      await release(connection);
    };
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      state.beforeWrite?.();
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  };
  // SQLite runs DDL in transactions; Kysely's adapter says it does not, so its migrator would run
  // migrations outside one and a migration failing halfway would leave its first steps applied.
  const createAdapter = dialect.createAdapter.bind(dialect);
  dialect.createAdapter = () => {
    const adapter = createAdapter();
    Object.defineProperty(adapter, 'supportsTransactionalDdl', { value: true });
    return adapter;
  };
  return dialect;
}

/**
 * Runs a compiled statement on SQLite's one connection synchronously, skipping Kysely's connection queue
 * (about 12 µs of promises per statement): inside a transaction, whose connection it is; outside one,
 * only while no transaction or query holds the connection, so it never runs inside another request's
 * transaction. Being synchronous, nothing can interleave with it. Undefined when it may not run now
 * (the caller goes through Kysely) or the database is not SQLite.
 */
function runNowOnSqlite<R>(db: Db, query: CompiledQuery<R>): R[] | undefined {
  const state = sqliteConnections.get(db.getExecutor().adapter);
  if (!state || (state.held && !db.isTransaction)) return undefined;
  return runOnSqlite(state, query);
}

function runOnSqlite<R>(state: SqliteConnectionState, query: CompiledQuery<R>): R[] {
  const statement = state.statements.prepare(query.sql) as unknown as { reader: boolean; all(p: readonly unknown[]): R[]; run(p: readonly unknown[]): unknown };
  if (statement.reader) return statement.all(query.parameters);
  if (!state.database.inTransaction) state.beforeWrite?.();
  statement.run(query.parameters);
  return [];
}

/** Runs a compiled statement on SQLite's connection, synchronously (inside sqliteTransaction's work). */
export type RunNow = <R>(query: CompiledQuery<R>) => R[];

/**
 * Runs `work` as one SQLite transaction on the one connection, synchronously: BEGIN IMMEDIATE, the work,
 * COMMIT (ROLLBACK if it throws). The hot multi-statement writes (a new session, a refresh rotation) take
 * this instead of a Kysely transaction and its promises around every statement. When a transaction or a
 * query of Kysely holds the connection, it waits for it in Kysely's queue first; inside the caller's
 * transaction (`db` is one) the work joins it (no savepoint: a throw leaves the caller to roll back).
 * Being synchronous, nothing interleaves with the work.
 */
export async function sqliteTransaction<T>(db: Db, work: (run: RunNow) => T): Promise<T> {
  const state = sqliteConnections.get(db.getExecutor().adapter);
  if (!state) throw new Error('sqliteTransaction needs the SQLite store');
  const run: RunNow = (query) => runOnSqlite(state, query);
  if (db.isTransaction) return work(run);
  if (!state.held) return transactionNow(state, work, run);
  return db.connection().execute(async () => transactionNow(state, work, run));
}

function transactionNow<T>(state: SqliteConnectionState, work: (run: RunNow) => T, run: RunNow): T {
  if (state.database.inTransaction) throw new Error('sqliteTransaction: the connection is already in a transaction');
  state.beforeWrite?.();
  state.statements.prepare('begin immediate').run([]);
  try {
    const value = work(run);
    state.statements.prepare('commit').run([]);
    return value;
  } catch (error) {
    // SQLite may have rolled back by itself (a full disk, an I/O error); the work's error is the one to report.
    try {
      if (state.database.inTransaction) state.statements.prepare('rollback').run([]);
    } catch {
      // the original error below says what went wrong
    }
    throw error;
  }
}

/** True when the store behind `db` is SQLite. */
export const isSqlite = (db: Db) => sqliteConnections.has(db.getExecutor().adapter);

/** Runs a compiled statement: at once on SQLite when it may (runNowOnSqlite), else through Kysely. */
export async function executeCompiled<R>(db: Db, query: CompiledQuery<R>): Promise<R[]> {
  return runNowOnSqlite(db, query) ?? (await db.executeQuery(query)).rows;
}


export const DEFAULT_STORE_TIMEOUTS: StoreTimeouts = { queryTimeoutMs: 5_000, poolTimeoutMs: 5_000 };

/**
 * Opens the database named by DATABASE_URL. SQLite gets WAL and a busy timeout for concurrent readers;
 * PostgreSQL a pool whose every query, connection wait and client error is bounded (see openPostgresPool).
 */
export function openStore(config: DatabaseConfig, timeouts: StoreTimeouts = DEFAULT_STORE_TIMEOUTS): Store {
  if (config.kind === 'sqlite') {
    if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
    const database = new SQLite(config.path);
    database.pragma('journal_mode = WAL');
    // Busy past this wait is a connection-class failure: 503 with Retry-After (store/dialect.ts).
    database.pragma(`busy_timeout = ${Math.max(15_000, timeouts.queryTimeoutMs)}`);
    database.pragma('foreign_keys = ON');
    database.pragma('synchronous = NORMAL');
    // SQLite's own page cache, 32 MB unless SQLITE_CACHE_MB says otherwise (a most: pages come in as they are
    // read, so a small database never fills it). It was 2 MB (2026-11-26: a write load filled 16 MB and held
    // it, for no more requests a second); at a million rows a table query's walk, a row lookup per examined
    // row, ran at 0.32-0.41 of its small-table rate with 2 MB, 0.62-0.68 with 16 MB and 0.77-0.81 with 32 MB
    // (bench/README.md, "Data scale", 2026-11-29 09:48 and 09:56 UTC), for 16 MB more peak RSS.
    database.pragma(`cache_size = ${-1000 * (timeouts.sqliteCacheMb ?? 32)}`);
    // ANALYZE (PRAGMA optimize, store/statistics.ts) samples at most this many rows of each index, so it
    // takes milliseconds on a table of any size.
    database.pragma('analysis_limit = 1000');
    // The write-ahead log is cut back to a quarter of SQLITE_WAL_LIMIT_MB whenever it starts over (every
    // connection, the CLI's too); the server's checkpoint thread keeps it under the limit (sqlite-checkpoints.ts).
    const walLimitBytes = (timeouts.sqliteWalLimitMb ?? WAL_LIMIT_MB) * 2 ** 20;
    database.pragma(`journal_size_limit = ${walKeepBytes(walLimitBytes)}`);
    const statements = cachingStatements(database);
    const state: SqliteConnectionState = { database, statements, held: false };
    const db = new Kysely<Database>({ dialect: sqliteDriver(new SqliteDialect({ database: statements }), state) });
    sqliteConnections.set(db.getExecutor().adapter, state);
    // The handle itself, not Kysely's one-connection queue: a probe must not wait behind a transaction.
    const probe = database.prepare('select 1');
    const ping = async () => void probe.get();
    const stopCheckpoints = timeouts.backgroundCheckpoints && config.path !== ':memory:' ? checkpointInBackground(database, config.path, timeouts.backgroundCheckpoints, walLimitBytes) : undefined;
    if (stopCheckpoints) state.beforeWrite = logGuard(database, config.path, walLimitBytes);
    const close = async () => {
      await stopCheckpoints?.();
      await db.destroy();
    };
    return { db, dialect: 'sqlite', ping, close };
  }
  const pool = openPostgresPool(config.url, timeouts);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  if (timeouts.transactionRetries) setRetryPolicy(db, timeouts.transactionRetries);
  prepareOnPostgres('select 1');
  // Health checks arriving while a probe is in flight share its answer: one round trip per burst, not
  // one per request (each costs node-postgres and a backend on the machine's cores).
  let probe: Promise<void> | undefined;
  const ping = () =>
    (probe ??= pool.query('select 1').then(
      () => void (probe = undefined),
      (error: unknown) => {
        probe = undefined;
        throw error;
      },
    ));
  const poolStats = (): PoolStats => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 });
  return { db, dialect: 'postgres', ping, close: () => db.destroy(), poolStats };
}
