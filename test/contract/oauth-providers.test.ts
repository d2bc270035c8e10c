import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { RETURN, SITE } from '../helpers/oauth.js';
import { newAppleKey } from '../helpers/oidc-provider.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/oauth.md: provider configuration (Secret), secrets redacted in every
// answer and sealed at rest, app isolation, and authorize's checks before any provider is contacted.

let server: TestServer;
let appA: TestApp;
let appB: TestApp;
beforeAll(async () => {
  // Issuers no test may reach: a plain-http one off loopback must be refused before any request.
  server = await startServer({ GOOGLE_ISSUER: 'http://issuer.example.test', APPLE_ISSUER: 'https://127.0.0.1:1' });
  appA = await createApp(server, { name: 'A', args: ['--allowed-origin', SITE] });
  appB = await createApp(server, { name: 'B', args: ['--allowed-origin', SITE] });
});
afterAll(async () => {
  await server?.stop();
});

const GOOGLE_SECRET = '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4e5f6g7h8';
const appleKey = newAppleKey('TEAMA12345', 'KEYA123456');
const appleBody = { client_id: 'com.example.web', team_id: appleKey.teamId, key_id: appleKey.keyId, private_key: appleKey.privateKeyPem };
const googleBody = { client_id: '1234-abc.apps.googleusercontent.com', client_secret: GOOGLE_SECRET };

const as = (app: TestApp, method: string, path: string, body?: unknown) => api(server, method, path, { bearer: app.secret_key, body });
const list = async (app: TestApp) => (await as(app, 'GET', '/v1/oauth/providers')).body.providers as Record<string, unknown>[];

describe('4.2 OAuth provider configuration (Secret)', () => {
  it('PUT google → 200 with the secret as ****; scopes default to openid email profile, openid always added', async () => {
    const res = await as(appA, 'PUT', '/v1/oauth/providers/google', googleBody);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ provider: 'google', client_id: googleBody.client_id, client_secret: '****', scopes: ['openid', 'email', 'profile'] });
    const scoped = await as(appA, 'PUT', '/v1/oauth/providers/google', { ...googleBody, scopes: ['email'] });
    expect(scoped.body.scopes).toEqual(['openid', 'email']);
    expect(scoped.body.configured_at).toBe(res.body.configured_at);
    await as(appA, 'PUT', '/v1/oauth/providers/google', googleBody);
  });

  it('PUT apple → 200 with the key as ****, team_id and key_id shown', async () => {
    const res = await as(appA, 'PUT', '/v1/oauth/providers/apple', appleBody);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ provider: 'apple', client_id: appleBody.client_id, team_id: appleKey.teamId, key_id: appleKey.keyId, private_key: '****' });
  });

  it('GET lists both with every secret as ****; no answer carries a secret', async () => {
    const res = await as(appA, 'GET', '/v1/oauth/providers');
    expect(res.status).toBe(200);
    expect(res.body.providers.map((p: { provider: string }) => p.provider).sort()).toEqual(['apple', 'google']);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(GOOGLE_SECRET);
    expect(text).not.toContain('PRIVATE KEY');
    for (const p of res.body.providers) expect(p.client_secret ?? p.private_key).toBe('****');
  });

  it('bad bodies → 400 {detail} and nothing changes', async () => {
    const before = await list(appA);
    const bad: [string, unknown][] = [
      ['google', { client_id: 'x', client_secret: '' }],
      ['github', { client_id: 'x' }],
      ['apple', { ...appleBody, private_key: '' }],
      ['google', { client_id: '', client_secret: 's' }],
      ['google', { ...googleBody, scopes: 'openid email' }],
      ['google', { ...googleBody, scopes: ['has space'] }],
      ['apple', { ...appleBody, private_key: 'not a key' }],
      ['apple', { ...appleBody, private_key: readFileSync(new URL('../../package.json', import.meta.url), 'utf8') }],
      ['apple', { ...appleBody, team_id: 'has space' }],
      ['apple', { ...appleBody, key_id: undefined }],
    ];
    for (const [provider, body] of bad) {
      const res = await as(appA, 'PUT', `/v1/oauth/providers/${provider}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.detail).toBe('string');
    }
    expect(await list(appA)).toEqual(before);
  });

  it('an Apple key that is not ES256 (an RSA key) → 400 naming the problem', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const res = await as(appA, 'PUT', '/v1/oauth/providers/apple', { ...appleBody, private_key: rsa });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/ES256/);
  });

  it('a provider other than google, apple, github, microsoft or oidc-<name> → 404 on PUT, DELETE and authorize', async () => {
    for (const name of ['gitlab', 'oidc-', 'oidc-Upper', 'oidc-under_score', `oidc-${'a'.repeat(41)}`]) {
      expect((await as(appA, 'PUT', `/v1/oauth/providers/${name}`, { ...googleBody, issuer: 'https://idp.example.com', display_name: 'X' })).status, name).toBe(404);
      expect((await as(appA, 'DELETE', `/v1/oauth/providers/${name}`)).status, name).toBe(404);
      const res = await api(server, 'GET', `/v1/oauth/${name}/authorize?redirect_url=${encodeURIComponent(RETURN)}`, { publishableKey: appA.publishable_key });
      expect(res.status, name).toBe(404);
      expect(typeof res.body.detail).toBe('string');
    }
  });

  it('no key → 401; the publishable key → 403', async () => {
    expect((await api(server, 'GET', '/v1/oauth/providers')).status).toBe(401);
    expect((await api(server, 'PUT', '/v1/oauth/providers/google', { body: googleBody })).status).toBe(401);
    expect((await api(server, 'GET', '/v1/oauth/providers', { bearer: appA.publishable_key })).status).toBe(403);
  });

  it("app isolation: B sees none of A's providers, and B's DELETE does not reach A's (404)", async () => {
    expect(await list(appB)).toEqual([]);
    expect((await as(appB, 'DELETE', '/v1/oauth/providers/google')).status).toBe(404);
    expect((await list(appA)).length).toBe(2);
  });

  it("authorize for an app that has not configured the provider → 400 saying so (A's configuration never serves B)", async () => {
    const res = await api(server, 'GET', `/v1/oauth/google/authorize?redirect_url=${encodeURIComponent(RETURN)}`, { publishableKey: appB.publishable_key });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/not configured/);
  });

  it('authorize: redirect_url off the allow-list → 400; no publishable key → 401; no redirect_url → 400', async () => {
    const off = await api(server, 'GET', `/v1/oauth/google/authorize?redirect_url=${encodeURIComponent('https://evil.example/cb')}`, { publishableKey: appA.publishable_key });
    expect(off.status).toBe(400);
    expect(off.body.detail).toMatch(/allow-list/);
    expect((await api(server, 'GET', `/v1/oauth/google/authorize?redirect_url=${encodeURIComponent(RETURN)}`)).status).toBe(401);
    expect((await api(server, 'GET', '/v1/oauth/google/authorize', { publishableKey: appA.publishable_key })).status).toBe(400);
  });

  it('an http:// issuer off loopback is refused (502, nothing fetched); an issuer that does not answer → 502 {detail}', async () => {
    const google = await api(server, 'GET', `/v1/oauth/google/authorize?redirect_url=${encodeURIComponent(RETURN)}`, { publishableKey: appA.publishable_key });
    expect(google.status).toBe(502);
    expect(google.body.detail).toMatch(/https/);
    const apple = await api(server, 'GET', `/v1/oauth/apple/authorize?redirect_url=${encodeURIComponent(RETURN)}`, { publishableKey: appA.publishable_key });
    expect(apple.status).toBe(502);
    expect(apple.body.detail).toMatch(/discovery/);
  });

  it('secrets at rest: a dump of the database shows neither the client secret nor the Apple key', async () => {
    const keyBody = appleKey.privateKeyPem.split('\n').filter((l) => l && !l.startsWith('-----')).join('');
    let dump: string;
    if (server.databaseUrl.startsWith('sqlite:')) {
      const file = server.databaseUrl.slice('sqlite:'.length);
      dump = [file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f).toString('latin1')).join('\n');
    } else {
      dump = (await promisify(execFile)('pg_dump', [server.databaseUrl], { maxBuffer: 64 * 1024 * 1024 })).stdout;
    }
    expect(dump).toContain(googleBody.client_id); // the dump is real: it holds the configuration
    expect(dump).not.toContain(GOOGLE_SECRET);
    expect(dump).not.toContain(keyBody.slice(0, 40));
    expect(dump).not.toContain('PRIVATE KEY');
    expect(await server.logs()).not.toContain(GOOGLE_SECRET);
  });

  it('DELETE → 200 {status: "deleted"}; again → 404; the list no longer has it', async () => {
    expect((await as(appA, 'DELETE', '/v1/oauth/providers/apple')).body).toEqual({ status: 'deleted' });
    expect((await as(appA, 'DELETE', '/v1/oauth/providers/apple')).status).toBe(404);
    expect((await list(appA)).map((p) => p.provider)).toEqual(['google']);
  });
});
