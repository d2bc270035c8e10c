import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, type DatabaseConnection, type Driver } from 'kysely';
import type { DatabaseConfig } from '../config/index.js';
import type { DialectName } from './dialect.js';
import { openPostgresPool } from './pg-pool.js';
import { cachingStatements } from './statement-cache.js';
import type { Database } from './types.js';

export type Db = Kysely<Database>;

export interface Store {
  db: Db;
  dialect: DialectName;
  /** Resolves when the database answers `select 1` (GET /v1/health), rejects when it cannot. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * SQLite transactions start with BEGIN IMMEDIATE: they take the write lock up front and wait for it
 * (busy_timeout). A deferred transaction that reads and then writes fails at once with SQLITE_BUSY when
 * another process (the CLI beside the server, a second node on one file) wrote in between.
 */
function immediateTransactions(dialect: SqliteDialect): SqliteDialect {
  const createDriver = dialect.createDriver.bind(dialect);
  dialect.createDriver = (): Driver => {
    const driver = createDriver();
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  };
  return dialect;
}

export interface StoreTimeouts {
  /** The longest one query may run: statement_timeout on the server and a read timeout on the client; 0 for none. */
  queryTimeoutMs: number;
  /** The longest a request waits for a pooled connection (or a new one to open). */
  poolTimeoutMs: number;
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
    const statements = cachingStatements(database);
    const db = new Kysely<Database>({ dialect: immediateTransactions(new SqliteDialect({ database: statements })) });
    // The handle itself, not Kysely's one-connection queue: a probe must not wait behind a transaction.
    const probe = database.prepare('select 1');
    const ping = async () => void probe.get();
    return { db, dialect: 'sqlite', ping, close: () => db.destroy() };
  }
  const pool = openPostgresPool(config.url, timeouts);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const ping = async () => void (await pool.query('select 1'));
  return { db, dialect: 'postgres', ping, close: () => db.destroy() };
}
