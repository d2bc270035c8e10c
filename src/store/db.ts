import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, type DatabaseConnection, type Driver } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config/index.js';
import type { DialectName } from './dialect.js';
import type { Database } from './types.js';

export type Db = Kysely<Database>;

export interface Store {
  db: Db;
  dialect: DialectName;
  close(): Promise<void>;
}

// PostgreSQL's int8 (count(*), sums) arrives as text by default; our values fit a double.
pg.types.setTypeParser(20, (value) => Number(value));

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

/** Opens the database named by DATABASE_URL. SQLite gets WAL and a busy timeout for concurrent readers. */
export function openStore(config: DatabaseConfig): Store {
  if (config.kind === 'sqlite') {
    if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
    const database = new SQLite(config.path);
    database.pragma('journal_mode = WAL');
    database.pragma('busy_timeout = 15000');
    database.pragma('foreign_keys = ON');
    database.pragma('synchronous = NORMAL');
    const db = new Kysely<Database>({ dialect: immediateTransactions(new SqliteDialect({ database })) });
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  const pool = new pg.Pool({ connectionString: config.url, max: 20, connectionTimeoutMillis: 5_000 });
  // An idle client's error (the server restarting) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}
