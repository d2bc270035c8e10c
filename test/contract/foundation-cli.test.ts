import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { built } from '../helpers/server-deps.js';
import { runCli, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({}, { cliProcess: true });
});
afterAll(async () => {
  await server?.stop();
});

describe('contract 1: the gatehouse CLI', () => {
  it('tenant create --json prints tenant_id, name, created_at', async () => {
    const tenant = await cliJson<Record<string, string>>(server, ['tenant', 'create', '--name', 'Acme Inc']);
    expect(Object.keys(tenant).sort()).toEqual(['created_at', 'name', 'tenant_id']);
    expect(tenant.tenant_id).toMatch(/^ten_[A-Za-z0-9]+$/);
    expect(tenant.name).toBe('Acme Inc');
    expect(new Date(tenant.created_at).toISOString()).toBe(tenant.created_at);
  });

  it('app create --json prints ids, both keys and the settings, with defaults', async () => {
    const tenantId = await createTenant(server);
    const app = await cliJson<TestApp>(server, ['app', 'create', '--tenant', tenantId, '--name', 'Shop']);
    expect(app.app_id).toMatch(/^app_[A-Za-z0-9]+$/);
    expect(app.tenant_id).toBe(tenantId);
    expect(app.publishable_key).toMatch(/^pk_[A-Za-z0-9]{24,}$/);
    expect(app.secret_key).toMatch(/^sk_[A-Za-z0-9]{40,}$/);
    expect(app).toMatchObject({
      name: 'Shop',
      domain: null,
      allowed_origins: [],
      verification_method: 'code',
      passwords_enabled: true,
      hashcash_enabled: null,
      hashcash_difficulty: 6,
      bot_min_usd: 1,
      signing_key_id: `${app.app_id}:1`,
    });
  });

  it('app create takes every setting; the verified domain joins the allow-list', async () => {
    const app = await createApp(server, {
      viaCli: true,
      args: [
        '--domain', 'Shop.Example.com',
        '--allowed-origin', 'http://localhost:3000',
        '--allowed-origin', 'https://admin.example.com',
        '--verification-method', 'both',
        '--passwords', 'off',
        '--hashcash', 'off',
        '--hashcash-difficulty', '12',
        '--bot-min-usd', '2.50',
      ],
    });
    expect(app).toMatchObject({
      domain: 'shop.example.com',
      allowed_origins: ['http://localhost:3000', 'https://admin.example.com', 'https://shop.example.com'],
      verification_method: 'both',
      passwords_enabled: false,
      hashcash_enabled: false,
      hashcash_difficulty: 12,
      bot_min_usd: 2.5,
    });
  });

  it('app update changes only the given settings and never shows the secret key', async () => {
    const app = await createApp(server);
    const updated = await cliJson<TestApp>(server, ['app', 'update', app.app_id, '--verification-method', 'link', '--name', 'Renamed']);
    expect(updated).toMatchObject({ app_id: app.app_id, name: 'Renamed', verification_method: 'link', passwords_enabled: true });
    expect(updated.secret_key).toBeUndefined();
    expect(updated.publishable_key).toBe(app.publishable_key);
  });

  it('app rotate-keys makes the next key version current', async () => {
    const app = await createApp(server);
    const rotated = await cliJson<TestApp>(server, ['app', 'rotate-keys', app.app_id]);
    expect(rotated.signing_key_id).toBe(`${app.app_id}:2`);
  });

  it('app rotate-secret returns a new secret key', async () => {
    const app = await createApp(server);
    const rotated = await cliJson<TestApp>(server, ['app', 'rotate-secret', app.app_id, '--keep-old-for', '60']);
    expect(rotated.secret_key).toMatch(/^sk_/);
    expect(rotated.secret_key).not.toBe(app.secret_key);
  });

  it('bad options exit 2 with a clear message', async () => {
    const tenantId = await createTenant(server);
    const cases: [string[], RegExp][] = [
      [['app', 'create', '--tenant', tenantId, '--name', 'x', '--verification-method', 'sms'], /verification-method/],
      [['app', 'create', '--tenant', tenantId, '--name', 'x', '--passwords', 'maybe'], /on or off/],
      [['app', 'create', '--tenant', tenantId, '--name', 'x', '--hashcash-difficulty', '33'], /0 to 32/],
      [['app', 'create', '--tenant', tenantId, '--name', 'x', '--allowed-origin', 'http://evil.example.com'], /https/],
      [['app', 'create', '--tenant', tenantId, '--name', 'x', '--bot-min-usd', '1.234'], /USD/],
      [['app', 'create', '--name', 'x'], /--tenant/],
      [['tenant', 'create'], /--name/],
      [['app', 'frobnicate'], /unknown command/],
    ];
    for (const [args, message] of cases) {
      const result = await server.cli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
  });

  it('an unknown tenant or app exits 1 and names it', async () => {
    const missingTenant = await server.cli(['app', 'create', '--tenant', 'ten_nothere', '--name', 'x']);
    expect(missingTenant.code).toBe(1);
    expect(missingTenant.stderr).toMatch(/ten_nothere not found/);
    const missingApp = await server.cli(['app', 'rotate-keys', 'app_nothere']);
    expect(missingApp.code).toBe(1);
    expect(missingApp.stderr).toMatch(/app_nothere not found/);
  });

  it('a domain verified for one app is refused for another (exit 1, conflict)', async () => {
    await createApp(server, { args: ['--domain', 'taken.example.com'] });
    const tenantId = await createTenant(server);
    const result = await server.cli(['app', 'create', '--tenant', tenantId, '--name', 'x', '--domain', 'taken.example.com']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/already verified/);
  });
});

describe('contract 1: configuration errors stop start-up naming the variable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const bad: [Record<string, string>, RegExp][] = [
    [{ PORT: 'eighty' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ DATABASE_URL: 'postgres://127.0.0.1:5432/x' }, /MASTER_KEY/],
    [{ MASTER_KEY: 'c2hvcnQ=' }, /MASTER_KEY.*32 bytes/],
    [{ HASHCASH_ENABLED: 'perhaps' }, /HASHCASH_ENABLED/],
    [{ RATE_LIMITS: 'signup_ip=ten/60' }, /RATE_LIMITS/],
    [{ RATE_LIMITS: 'nonsense=1/60' }, /RATE_LIMITS.*unknown limit/],
    [{ SMTP_URL: 'http://mail' }, /SMTP_URL/],
    [{ REDIS_URL: 'not a url' }, /REDIS_URL/],
    [{ BLOB_STORE: 'ftp://x' }, /BLOB_STORE/],
    [{ TRUST_PROXY: 'everyone' }, /TRUST_PROXY/],
    [{ CONFIRMATIONS_URL: 'nope' }, /CONFIRMATIONS_URL/],
    [{ SSO_TOKEN_TTL_SECONDS: '0' }, /SSO_TOKEN_TTL_SECONDS/],
    [{ MAX_SIGNIN_TOKEN_LIFETIME_SECONDS: '-5' }, /MAX_SIGNIN_TOKEN_LIFETIME_SECONDS/],
    [{ ADMIN_TOKEN: 'short' }, /ADMIN_TOKEN/],
  ];
  // `serve` reads its configuration with loadConfig(process.env, { serve: true }) (src/cli/server.ts) and
  // exits 2 on the ConfigError it throws (src/cli/index.ts): each variable's check is that call, in the test
  // process; the exit itself is a real `serve` process, for the first and the last variable of the list.
  for (const [env, message] of bad) {
    it(`refuses ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')}`, async () => {
      const { config } = await built();
      expect(() => config.loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, ...env }, { serve: true })).toThrow(config.ConfigError);
      expect(() => config.loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, ...env }, { serve: true })).toThrow(message);
    });
  }

  for (const [env, message] of [bad[0]!, bad[bad.length - 1]!]) {
    it(`gatehouse serve with ${Object.keys(env).join(' ')} bad exits 2 naming it, before it listens`, async () => {
      const result = await runCli(['serve'], { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, ...env }, dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr + result.stdout).not.toContain('Gatehouse is listening');
    });
  }

  it('the same check guards CLI commands', async () => {
    const result = await runCli(['tenant', 'create', '--name', 'x'], { PORT: '99999' }, dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/PORT/);
  });
});
