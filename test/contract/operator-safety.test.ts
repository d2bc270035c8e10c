import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_MIGRATION } from '../../src/store/migrations/index.js';
import { createPostgresDatabase, execDatabase, queryDatabase, TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { runCli, startServer, type TestServer } from '../helpers/server.js';

// Issue 35, findings 6 (the master-key check), 7 (migrations in one transaction, a newer database
// refused) and 8 (only serve and migrate create a database; PUBLIC_BASE_URL with PostgreSQL).
// docs/operations.md.

const MISMATCH = /MASTER_KEY does not match this database/;
// Each test runs several CLI processes, each a few seconds on a loaded machine.
const SLOW = 240_000;
let server: TestServer;
let app: TestApp;
const dirs: string[] = [];
const drops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  server = await startServer({}, { cliProcess: true });
  app = await createApp(server);
});
afterAll(async () => {
  await server?.stop();
  await Promise.all(drops.map((drop) => drop().catch(() => {})));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-ops-'));
  dirs.push(dir);
  return dir;
}

/** A database of the run's kind that no migration has touched, with the environment a CLI needs for it. */
async function emptyDatabase(): Promise<{ dir: string; url: string; env: Record<string, string> }> {
  const dir = tempDir();
  let url = `sqlite:${join(dir, 'gh.db')}`;
  if (TEST_DB === 'postgres') {
    const database = await createPostgresDatabase();
    drops.push(database.drop);
    url = database.url;
  }
  return { dir, url, env: { DATABASE_URL: url, MASTER_KEY: randomBytes(32).toString('base64'), SMTP_URL: 'log:' } };
}

const tablesOf = async (url: string) =>
  (
    await queryDatabase(
      url,
      url.startsWith('sqlite:')
        ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        : 'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()',
    )
  )
    .map((row) => row.name as string)
    .sort();

async function signsIn(target: TestServer): Promise<void> {
  const email = `ops.${randomBytes(4).toString('hex')}@example.com`;
  expect((await api(target, 'POST', '/v1/users', { bearer: app.secret_key, body: { email, password: 'correct horse battery' } })).status).toBe(201);
  const session = await api(target, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password: 'correct horse battery' } });
  expect(session.status).toBe(200);
  expect((await api(target, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: session.body.access_token })).status).toBe(200);
}

describe('issue 35, finding 6: the database keeps a check value of MASTER_KEY', () => {
  it('35.6 a command or serve with another key exits non-zero ("MASTER_KEY does not match this database") and writes nothing; MASTER_KEY_PREVIOUS during a rotation works', async () => {
    const jwks = async () => (await api(server, 'GET', `/.well-known/jwks.json?app_id=${app.app_id}`)).body;
    const before = await jwks();
    const signingKeys = async () => (await queryDatabase(server.databaseUrl, 'SELECT id, private_key_sealed FROM signing_keys ORDER BY id')).map((r) => `${r.id} ${r.private_key_sealed}`);
    const keysBefore = await signingKeys();
    const another = randomBytes(32).toString('base64');

    const refused = await server.cli(['app', 'rotate-keys', app.app_id], { MASTER_KEY: another });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(MISMATCH);
    expect(await jwks()).toEqual(before);
    expect(await signingKeys()).toEqual(keysBefore);
    await signsIn(server);

    // serve refuses to start with it (PORT 0: a free port, were it to start).
    const serve = await runCli(['serve'], { ...server.env, MASTER_KEY: another, PORT: '0', PUBLIC_BASE_URL: 'http://127.0.0.1:1' }, server.dir);
    expect(serve.code).not.toBe(0);
    expect(serve.stderr).toMatch(MISMATCH);

    // A rotation: the new key with the old one as MASTER_KEY_PREVIOUS works; once rotated, the old key alone is refused.
    const old = server.env.MASTER_KEY ?? readFileSync(join(server.dir, 'data/master.key'), 'utf8').trim();
    const newKey = randomBytes(32).toString('base64');
    const during = { MASTER_KEY: newKey, MASTER_KEY_PREVIOUS: old };
    expect((await server.cli(['tenant', 'create', '--name', 'During rotation'], during)).code).toBe(0);
    const rotated = await server.cli(['master-key', 'rotate', '--json'], during);
    expect(rotated.code, rotated.stderr).toBe(0);
    const tenants = async () => (await queryDatabase(server.databaseUrl, 'SELECT COUNT(*) AS n FROM tenants'))[0].n;
    const count = await tenants();
    const oldAlone = await server.cli(['tenant', 'create', '--name', 'Old key'], { MASTER_KEY: old });
    expect(oldAlone.code).not.toBe(0);
    expect(oldAlone.stderr).toMatch(MISMATCH);
    expect(await tenants()).toBe(count);
    expect((await server.cli(['tenant', 'create', '--name', 'New key'], { MASTER_KEY: newKey })).code).toBe(0);
  }, SLOW);
});

describe('issue 35, finding 7: migrations run in one transaction; a newer database is refused', () => {
  it('35.7 a migration failing halfway leaves the schema as it was and is named; the next run succeeds; a database newer than the build exits non-zero', async () => {
    const { dir, url, env } = await emptyDatabase();
    // An index named like the one 0006-mail-outbox creates after its table: its second step fails.
    await execDatabase(url, 'CREATE TABLE obstacle (x integer)');
    await execDatabase(url, 'CREATE INDEX mail_outbox_due ON obstacle (x)');
    const schemaBefore = await tablesOf(url);

    const failed = await runCli(['migrate'], env, dir);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/migration 0006-mail-outbox failed/);
    // Only Kysely's own bookkeeping tables may have appeared: no table of any migration, 0006's first step included.
    const schemaAfter = await tablesOf(url);
    expect(schemaAfter.filter((name) => !name.startsWith('kysely_'))).toEqual(schemaBefore);
    expect(await queryDatabase(url, 'SELECT name FROM kysely_migration')).toEqual([]);

    await execDatabase(url, 'DROP TABLE obstacle');
    const retried = await runCli(['migrate'], env, dir);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toMatch(/applied: .*0006-mail-outbox/);
    expect(await tablesOf(url)).toEqual(expect.arrayContaining(['mail_outbox', 'tenants', 'settings']));

    // A later release's migration in the database: refused, naming both.
    await execDatabase(url, `INSERT INTO kysely_migration (name, timestamp) VALUES ('9999-from-a-later-release', '${new Date().toISOString()}')`);
    const newer = `database is at migration 9999-from-a-later-release, newer than this release (${LATEST_MIGRATION})`;
    for (const args of [['migrate'], ['tenant', 'create', '--name', 'x']]) {
      const res = await runCli(args, env, dir);
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain(newer);
    }
    const serve = await runCli(['serve'], { ...env, PORT: '0', PUBLIC_BASE_URL: 'http://127.0.0.1:1' }, dir);
    expect(serve.code).not.toBe(0);
    expect(serve.stderr).toContain(newer);
  }, SLOW);
});

describe('issue 35, finding 8: only serve and migrate create a database; PostgreSQL needs PUBLIC_BASE_URL', () => {
  it('35.8 a command where no database is exits non-zero naming the place and creates nothing; migrate creates it; serve on PostgreSQL without PUBLIC_BASE_URL is a configuration error', async () => {
    // No DATABASE_URL: the default ./data/gatehouse.db, which does not exist here.
    const dir = tempDir();
    for (const args of [['tenant', 'create', '--name', 'Stray'], ['app', 'rotate-keys', 'app_missing']]) {
      const res = await runCli(args, { SMTP_URL: 'log:' }, dir);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stderr).toContain(join(dir, 'data/gatehouse.db'));
      expect(res.stderr).toMatch(/gatehouse migrate/);
    }
    expect(existsSync(join(dir, 'data'))).toBe(false);
    expect((await runCli(['migrate'], {}, dir)).code).toBe(0);
    expect(existsSync(join(dir, 'data/gatehouse.db'))).toBe(true);
    expect((await runCli(['tenant', 'create', '--name', 'Now'], {}, dir)).code).toBe(0);

    // A database of the run's kind that nothing migrated: refused too, and left untouched.
    const empty = await emptyDatabase();
    const res = await runCli(['tenant', 'create', '--name', 'Stray'], empty.env, empty.dir);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/no Gatehouse database at/);
    if (TEST_DB === 'sqlite') expect(existsSync(join(empty.dir, 'gh.db'))).toBe(false);
    else expect(await tablesOf(empty.url)).toEqual([]);

    // PostgreSQL: serve requires PUBLIC_BASE_URL (checked before connecting); migrate does not.
    const pg = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', MASTER_KEY: randomBytes(32).toString('base64'), SMTP_URL: 'log:', PORT: '0' };
    const serve = await runCli(['serve'], pg, dir);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/PUBLIC_BASE_URL: is required with PostgreSQL/);
    expect((await runCli(['migrate'], pg, dir)).stderr).not.toMatch(/PUBLIC_BASE_URL/);
  }, SLOW);
});

describe('a server that cannot listen exits', () => {
  it('with status 1 and the reason when its port is taken (nothing it opened keeps the process alive)', async () => {
    // A running server's own port, with its configuration: the database opens, migrations are done, the
    // checkpoint thread starts on SQLite, and then listen fails.
    const own = await startServer({}, { cliProcess: true });
    try {
      const started = Date.now();
      const result = await runCli(['serve'], { ...own.env, PORT: String(own.port), PUBLIC_BASE_URL: own.url }, own.dir);
      expect(result.code).toBe(1);
      expect(result.stderr + result.stdout).toContain('EADDRINUSE');
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      await own.stop();
    }
  });
});
