import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pg from 'pg';

/** Which database this run targets: `npm test` runs every file once per value. */
export const TEST_DB = (process.env.TEST_DB ?? 'sqlite') as 'sqlite' | 'postgres';
export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The run's migrated templates (test/helpers/templates.mjs, made by test/run.mjs): a database of the default
 * build starts as their copy rather than migrating from empty. Unset (vitest run alone): every database
 * starts empty and its server migrates it.
 */
const PG_TEMPLATE = process.env.GATEHOUSE_TEST_PG_TEMPLATE;
const SQLITE_TEMPLATE = process.env.GATEHOUSE_TEST_SQLITE_TEMPLATE;

/**
 * Creates a PostgreSQL database for one server: empty, or with `migrated` a copy of the run's migrated
 * template when there is one (for a server of the build under test, whose start would apply the same
 * migrations). Returns its URL and a drop function.
 */
export async function createPostgresDatabase(options: { migrated?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `gh_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${options.migrated && PG_TEMPLATE ? ` TEMPLATE ${PG_TEMPLATE}` : ''}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Puts the run's migrated SQLite template at `path` when there is one (see createPostgresDatabase); else leaves it absent. */
export function seedSqliteDatabase(path: string): void {
  if (!SQLITE_TEMPLATE) return;
  mkdirSync(dirname(path), { recursive: true });
  copyFileSync(SQLITE_TEMPLATE, path);
}

/** Runs one query against the server's database (SQLite file or PostgreSQL), for at-rest assertions. */
export async function queryDatabase(databaseUrl: string, text: string): Promise<Record<string, unknown>[]> {
  if (databaseUrl.startsWith('sqlite:')) {
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(databaseUrl.slice('sqlite:'.length), { readonly: true });
    try {
      return db.prepare(text).all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** Runs one writing statement against the server's database (to age a row, as time would). */
export async function execDatabase(databaseUrl: string, text: string): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) {
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(databaseUrl.slice('sqlite:'.length));
    try {
      db.pragma('busy_timeout = 15000');
      db.prepare(text).run();
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
