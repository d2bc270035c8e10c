import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Which database this run targets: `npm test` runs every file once per value. */
export const TEST_DB = (process.env.TEST_DB ?? 'sqlite') as 'sqlite' | 'postgres';
export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Creates an empty PostgreSQL database for one server; returns its URL and a drop function. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `gh_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
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
