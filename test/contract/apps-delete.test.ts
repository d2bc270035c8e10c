import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataTablesLeft, rowsLeftOf, spawnCli } from '../helpers/app-rows.js';
import { signUp } from '../helpers/accounts.js';
import { queryDatabase } from '../helpers/db.js';
import { api, cliJson, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { createBucket, getObject, putObject, sessionUser, startObjectServer, type ObjectEnv } from '../helpers/objects.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { asSecret, insertRow, makeTable, query } from '../helpers/tables.js';

// docs/operations.md and docs/privacy.md: `app delete` and `tenant delete` mark at once (every route of every node
// refuses the app), then remove everything in batches that resume after a crash; nothing is left at rest.

const SHARED = { PUBLIC_BASE_URL: 'https://auth.example.test', MASTER_KEY: randomBytes(32).toString('base64') };

interface Populated {
  app: TestApp;
  users: string[];
  tokens: string[];
  tables: string[];
  buckets: string[];
}

describe('14 deleting apps and tenants', () => {
  let env: ObjectEnv;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    env = await startObjectServer('file', SHARED);
    a = env.server;
    // A second node on the same database (SQLite: the same file), with the same issuer and master key.
    b = await startServer({ ...SHARED, DATABASE_URL: a.databaseUrl, BLOB_STORE: `file:${join(a.dir, 'data/blobs')}` });
  }, 120_000);
  afterAll(async () => {
    await b?.stop();
    await env?.stop();
  });

  /** An app with users, sessions, a sign-up's code and email, a custom table with rows, a bucket with objects. */
  async function populate(tenantId: string, userCount: number, domain?: string): Promise<Populated> {
    const app = await createApp(a, { tenantId, args: domain ? ['--domain', domain] : [] });
    const users: string[] = [];
    const tokens: string[] = [];
    for (let i = 0; i < userCount; i++) {
      const user = await sessionUser(a, app);
      users.push(user.userId);
      tokens.push(user.token);
    }
    expect((await signUp(a, app, { email: `signup.${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse battery' })).status).toBe(200);
    const table = await makeTable(a, asSecret(app), [{ name: 'title', type: 'text' }]);
    for (let i = 0; i < 3; i++) await insertRow(a, asSecret(app), table.table_id, { title: `row ${i}` }, { user_id: users[i % users.length] });
    const bucket = await createBucket(a, app);
    for (let i = 0; i < 3; i++) expect((await putObject(a, app, bucket.bucket_id, `k/${i}.bin`, randomBytes(100 + i))).status).toBe(200);
    return { app, users, tokens, tables: [table.table_id], buckets: [bucket.bucket_id] };
  }

  /** What a user, a server and a verifier of the app would each try: all refused, on `node`. */
  async function expectRefused(node: TestServer, p: Populated, domain?: string) {
    const { app } = p;
    expect((await api(node, 'GET', '/v1/users', { bearer: app.secret_key })).status).toBe(401);
    expect((await api(node, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: p.tokens[0] })).status).toBe(401);
    expect((await api(node, 'POST', '/v1/challenges', { publishableKey: app.publishable_key, body: {} })).status).toBe(401);
    expect((await query(node, asSecret(app), p.tables[0]!, {})).status).toBe(401);
    expect((await getObject(node, app, p.buckets[0]!, 'k/0.bin')).status).toBe(401);
    expect((await api(node, 'GET', `/.well-known/jwks.json?app_id=${app.app_id}`)).status).toBe(404);
    if (domain) {
      expect((await api(node, 'GET', '/.well-known/jwks.json', { headers: { host: domain } })).status).toBe(404);
      expect((await api(node, 'POST', '/v1/challenges', { headers: { host: domain }, body: {} })).status).toBe(401);
    }
  }

  async function expectWorking(node: TestServer, p: Populated) {
    expect((await api(node, 'GET', '/v1/me', { publishableKey: p.app.publishable_key, bearer: p.tokens[0] })).status).toBe(200);
    expect((await api(node, 'GET', '/v1/users?include_total=true', { bearer: p.app.secret_key })).body.total).toBe(p.users.length + 1);
    expect((await query(node, asSecret(p.app), p.tables[0]!, {})).body.rows).toHaveLength(3);
    const object = await getObject(node, p.app, p.buckets[0]!, 'k/1.bin');
    expect(object.status).toBe(200);
    expect(object.body.length).toBe(101);
  }

  it('1 app delete without --yes exits 2 and deletes nothing', async () => {
    const p = await populate(await createTenant(a), 1);
    const refused = await a.cli(['app', 'delete', p.app.app_id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    await expectWorking(a, p);
    expect((await a.cli(['app', 'delete', 'app_doesnotexist', '--yes'])).code).toBe(1);
  }, 300_000);

  it('14 app delete: refused at once on both nodes while the purge runs; killed midway (kill -9) it resumes and leaves nothing of the app', async () => {
    const tenantId = await createTenant(a);
    const domain = `del-${randomBytes(4).toString('hex')}.example.test`;
    const doomed = await populate(tenantId, 12, domain);
    const kept = await populate(tenantId, 2);
    // Node b has seen the doomed app's keys and tokens work: whatever it remembers must not serve it after.
    for (let i = 0; i < 2; i++) await expectWorking(b, doomed);

    const cli = spawnCli(a, ['app', 'delete', doomed.app.app_id, '--yes', '--batch-size', '1', '--json']);
    await cli.lines(4); // marked, and a few one-row batches removed
    cli.child.kill('SIGKILL');
    await cli.exited;

    // Marked but not yet purged: rows remain, and every route refuses the app on both nodes.
    expect((await rowsLeftOf(a, doomed.app.app_id, { users: doomed.users })).length).toBeGreaterThan(0);
    await expectRefused(a, doomed, domain);
    await expectRefused(b, doomed, domain);

    // Run again, it resumes; unless a server's purge job (every 30 s, which takes over a dead command's
    // lease at once) got there first on a slow machine: then the app is gone whole and the command says so.
    const resumed = await a.cli(['app', 'delete', doomed.app.app_id, '--yes', '--json']);
    if (resumed.code === 0) expect(JSON.parse(resumed.stdout).status).toBe('deleted');
    else {
      expect(resumed.stderr).toContain('not found');
      // The job logs once its whole run is done, which may be after the app's row went (the command's
      // "not found"): wait for the line, generously on a loaded machine.
      await expect.poll(() => a.output() + b.output(), { timeout: 60_000, interval: 200 }).toMatch(/purged a deleted application/);
      expect(a.output() + b.output()).toContain(`"app_id":"${doomed.app.app_id}"`);
    }
    expect(await rowsLeftOf(a, doomed.app.app_id, { users: doomed.users, buckets: doomed.buckets, tables: doomed.tables })).toEqual([]);
    expect(await dataTablesLeft(a, doomed.tables)).toEqual([]);
    expect(await env.blobCount(doomed.app.app_id)).toBe(0);
    await expectRefused(a, doomed, domain);
    expect((await a.cli(['app', 'show', doomed.app.app_id])).code).toBe(1);
    const listed = await cliJson<{ apps: { app_id: string }[] }>(a, ['app', 'list', '--tenant', tenantId]);
    expect(listed.apps.map((x) => x.app_id)).toEqual([kept.app.app_id]);

    // The other app of the same tenant is untouched, on both nodes.
    await expectWorking(a, kept);
    await expectWorking(b, kept);
    expect(await env.blobCount(kept.app.app_id)).toBe(3);
  }, 300_000);

  it('14 tenant delete: every app of the tenant goes; a CLI killed midway is finished by the server\'s purge job; the tenant row and its billing ledger stay', async () => {
    const tenantId = await createTenant(a, 'Leaving Inc');
    const first = await populate(tenantId, 6);
    const second = await populate(tenantId, 2);
    const other = await populate(await createTenant(a, 'Staying Inc'), 1);
    await cliJson(a, ['billing', 'credit', '--tenant', tenantId, '--amount-usd', '5', '--note', 'before leaving']);

    expect((await a.cli(['tenant', 'delete', tenantId])).code).toBe(2);
    const cli = spawnCli(a, ['tenant', 'delete', tenantId, '--yes', '--batch-size', '1']);
    await cli.lines(4);
    cli.child.kill('SIGKILL');
    await cli.exited;
    for (const p of [first, second]) await expectRefused(b, p);

    // The server's background job takes over the dead command's lease and finishes (it runs every 30 s).
    const deadline = Date.now() + 180_000; // generous: the job runs every 30 s, and a loaded machine slows each run
    let left: string[] = [];
    for (;;) {
      left = [...(await rowsLeftOf(a, first.app.app_id, { users: first.users, buckets: first.buckets, tables: first.tables })), ...(await rowsLeftOf(a, second.app.app_id, { users: second.users }))];
      // The job logs once its whole run is done, which is after the last rows go: wait for both.
      if ((left.length === 0 && /purged a deleted application/.test(a.output() + b.output())) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(left).toEqual([]);
    expect(await dataTablesLeft(a, [...first.tables, ...second.tables])).toEqual([]);
    expect(await env.blobCount(first.app.app_id)).toBe(0);
    // Either node's purge job may have taken over the lease.
    expect(a.output() + b.output()).toMatch(/purged a deleted application/);

    const tenants = await cliJson<{ tenants: { tenant_id: string }[] }>(a, ['tenant', 'list']);
    expect(tenants.tenants.map((t) => t.tenant_id)).not.toContain(tenantId);
    expect(tenants.tenants.map((t) => t.tenant_id)).toContain(other.app.tenant_id);
    expect((await a.cli(['tenant', 'show', tenantId])).code).toBe(1);
    expect((await a.cli(['app', 'create', '--tenant', tenantId, '--name', 'again'])).code).toBe(1);
    // The ledger is a financial record: kept, and still readable by the operator.
    const ledger = await queryDatabase(a.databaseUrl, `select amount_cents from billing_ledger where tenant_id = '${tenantId}'`);
    expect(ledger.map((r) => Number(r.amount_cents))).toEqual([500]);
    expect((await cliJson<{ balance_usd: string | number }>(a, ['billing', 'show', '--tenant', tenantId])).balance_usd).toBeTruthy();
    await expectWorking(a, other);
  }, 300_000);
});
