// Migrated templates for a test run (test/run.mjs): one SQLite file and one PostgreSQL database, each migrated
// from empty once by the build under test, that every test server of the default build starts from (a copy
// of the file; CREATE DATABASE ... TEMPLATE), instead of running every migration again at each start.
// Migrations up from empty stay tested where they are the subject: test/store/migrations.test.ts, the CLI's
// own files (operator-safety's empty databases), the earlier-release and two-node deployments
// (test/helpers/node-process.ts), which all start from empty databases. docs/testing.md says so.
//
// Schema only: what `migrate` writes after the migrations (the console app, its keys under the server's
// MASTER_KEY) is each server's own, made at its first start as on any new database.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const dist = new URL('../../dist/src/', import.meta.url);

async function migrate(config) {
  const { openStore } = await import(new URL('store/db.js', dist));
  const { migrateToLatest } = await import(new URL('store/migrations/index.js', dist));
  const store = openStore(config);
  try {
    await migrateToLatest(store.db);
  } finally {
    await store.close();
  }
}

/** The SQLite template: a migrated file in the system's temporary directory. Answers its path and a remover. */
export async function sqliteTemplate() {
  const path = join(tmpdir(), `gatehouse-template-${process.pid}-${randomBytes(4).toString('hex')}.db`);
  await migrate({ kind: 'sqlite', path });
  // Closed cleanly, the write-ahead log is checkpointed into the file: the file alone is the database.
  for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
  return { path, remove: () => rmSync(path, { force: true }) };
}

/** The PostgreSQL template: a migrated database on the admin URL's server, with no connection left open to it. */
export async function postgresTemplate(adminUrl) {
  const name = `gh_template_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = async (text) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await dropAbandoned(adminUrl);
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await migrate({ kind: 'postgres', url: url.toString() });
  return { name, remove: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** Templates a run left behind when it was killed (its process is gone): dropped, so they do not pile up. */
async function dropAbandoned(adminUrl) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT datname FROM pg_database WHERE datname LIKE 'gh\\_template\\_%'");
    for (const { datname } of rows) {
      const pid = Number(datname.split('_')[2]);
      if (alive(pid)) continue;
      await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => {});
    }
  } finally {
    await client.end();
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
