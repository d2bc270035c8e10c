import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cliJson, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/operations.md (2026-11-27): tenant list|show, app list|show with settings as stored, the
// allow-list edited one origin at a time, rotate-secret saying when the old key stops working.

describe('1 listing and showing tenants and apps', () => {
  let server: TestServer;
  let tenantId: string;
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    server = await startServer({}, { cliProcess: true });
    tenantId = await createTenant(server, 'Listed Inc');
    first = await createApp(server, { tenantId, name: 'First' });
    second = await createApp(server, { tenantId, name: 'Second', args: ['--hashcash', 'off', '--domain', 'second.example.test'] });
  }, 180_000);
  afterAll(() => server?.stop());

  it('1 tenant list and tenant show: the tenant with its apps; an unknown tenant exits 1', async () => {
    const { tenants } = await cliJson<{ tenants: { tenant_id: string; name: string; created_at: string }[] }>(server, ['tenant', 'list']);
    expect(tenants).toContainEqual({ tenant_id: tenantId, name: 'Listed Inc', created_at: expect.any(String) });
    const shown = await cliJson<{ tenant_id: string; apps: { app_id: string; name: string }[] }>(server, ['tenant', 'show', tenantId]);
    expect(shown.apps).toEqual([{ app_id: first.app_id, name: 'First' }, { app_id: second.app_id, name: 'Second' }]);
    const unknown = await server.cli(['tenant', 'show', 'ten_unknown']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/not found/);
  }, 180_000);

  it('1 app list, of all or of one tenant', async () => {
    const other = await createApp(server, { name: 'Elsewhere' });
    const all = await cliJson<{ apps: { app_id: string }[] }>(server, ['app', 'list']);
    expect(all.apps.map((a) => a.app_id)).toEqual(expect.arrayContaining([first.app_id, second.app_id, other.app_id]));
    const ofTenant = await cliJson<{ apps: { app_id: string; tenant_id: string; name: string; domain: string | null }[] }>(server, ['app', 'list', '--tenant', tenantId]);
    expect(ofTenant.apps).toEqual([
      { app_id: first.app_id, tenant_id: tenantId, name: 'First', domain: null, created_at: expect.any(String) },
      { app_id: second.app_id, tenant_id: tenantId, name: 'Second', domain: 'second.example.test', created_at: expect.any(String) },
    ]);
  }, 180_000);

  it('1 app show prints settings as stored: null follows the server default, whatever HASHCASH_ENABLED the CLI runs with', async () => {
    const shownOn = await server.cli(['app', 'show', first.app_id, '--json'], { HASHCASH_ENABLED: 'true' });
    const shownOff = await server.cli(['app', 'show', first.app_id, '--json'], { HASHCASH_ENABLED: 'false' });
    expect(shownOn.code).toBe(0);
    expect(shownOff.stdout).toBe(shownOn.stdout);
    const app = JSON.parse(shownOn.stdout);
    expect(app).toMatchObject({ app_id: first.app_id, hashcash_enabled: null, tables_limit_bytes: null, objects_limit_bytes: null, publishable_key: first.publishable_key });
    expect(app.secret_key).toBeUndefined();
    expect(app.secret_keys).toEqual([{ key_end: first.secret_key.slice(-4), created_at: expect.any(String), expires_at: null }]);
    expect((await cliJson<{ hashcash_enabled: boolean | null }>(server, ['app', 'show', second.app_id])).hashcash_enabled).toBe(false);
    // The server resolves null from its own HASHCASH_ENABLED (true here): a sign-up without proof is refused.
    const signup = await api(server, 'POST', '/v1/signups', { publishableKey: first.publishable_key, body: { email: 'x@example.com', password: 'correct horse battery' } });
    expect(signup.status).toBe(422);
  }, 180_000);

  it('1 --add-allowed-origin and --remove-allowed-origin keep the rest; --allowed-origin replaces the list, as --help says', async () => {
    const app = await createApp(server, { tenantId, args: ['--allowed-origin', 'https://a.example.test'] });
    const added = await cliJson<TestApp>(server, ['app', 'update', app.app_id, '--add-allowed-origin', 'https://b.example.test', '--add-allowed-origin', 'http://localhost:3000']);
    expect(added.allowed_origins).toEqual(['https://a.example.test', 'https://b.example.test', 'http://localhost:3000']);
    const removed = await cliJson<TestApp>(server, ['app', 'update', app.app_id, '--remove-allowed-origin', 'https://a.example.test']);
    expect(removed.allowed_origins).toEqual(['https://b.example.test', 'http://localhost:3000']);
    const replaced = await cliJson<TestApp>(server, ['app', 'update', app.app_id, '--allowed-origin', 'https://c.example.test']);
    expect(replaced.allowed_origins).toEqual(['https://c.example.test']);
    expect((await server.cli(['app', 'update', app.app_id, '--add-allowed-origin', 'ftp://nope'])).code).toBe(2);
    const help = await server.cli(['app', 'update', '--help']);
    // Commander wraps descriptions: read the help as one line.
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/--allowed-origin <url> (?:(?!--)[\s\S])*replaces the whole list/);
    expect(help.stdout).toMatch(/--add-allowed-origin/);
    expect(help.stdout).toMatch(/--remove-allowed-origin/);
  }, 180_000);

  it('1 rotate-secret --json says when the old key stops working and which key it was', async () => {
    const app = await createApp(server, { tenantId });
    const graced = await cliJson<{ secret_key: string; old_secret_key_expires_at: string; old_secret_key_end: string }>(server, ['app', 'rotate-secret', app.app_id, '--keep-old-for', '3600']);
    expect(graced.old_secret_key_end).toBe(app.secret_key.slice(-4));
    const end = Date.parse(graced.old_secret_key_expires_at);
    expect(end).toBeGreaterThan(Date.now() + 3_500_000);
    expect(end).toBeLessThan(Date.now() + 3_700_000);
    expect((await api(server, 'GET', '/v1/users', { bearer: app.secret_key })).status).toBe(200);

    const now = await cliJson<{ secret_key: string; old_secret_key_expires_at: string; old_secret_key_end: string }>(server, ['app', 'rotate-secret', app.app_id]);
    expect(now.old_secret_key_end).toBe(graced.secret_key.slice(-4));
    expect(Date.parse(now.old_secret_key_expires_at)).toBeLessThanOrEqual(Date.now());
    expect((await api(server, 'GET', '/v1/users', { bearer: graced.secret_key })).status).toBe(401);
    expect((await api(server, 'GET', '/v1/users', { bearer: app.secret_key })).status).toBe(401);
    expect((await api(server, 'GET', '/v1/users', { bearer: now.secret_key })).status).toBe(200);
  }, 180_000);
});
