import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
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

/** Opens the database named by DATABASE_URL. SQLite gets WAL and a busy timeout for concurrent readers. */
export function openStore(config: DatabaseConfig): Store {
  if (config.kind === 'sqlite') {
    if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
    const database = new SQLite(config.path);
    database.pragma('journal_mode = WAL');
    database.pragma('busy_timeout = 5000');
    database.pragma('foreign_keys = ON');
    database.pragma('synchronous = NORMAL');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  const pool = new pg.Pool({ connectionString: config.url, max: 20, connectionTimeoutMillis: 5_000 });
  // An idle client's error (the server restarting) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}
