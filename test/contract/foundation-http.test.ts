import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryDatabase } from '../helpers/db.js';
import { api, cliJson, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let app: TestApp;

beforeAll(async () => {
  server = await startServer();
  app = await createApp(server, { args: ['--domain', 'login.example.com'] });
});
afterAll(async () => {
  await server?.stop();
});

describe('contract 0: health, request ids and error shapes', () => {
  it('GET /v1/health answers ok with the version', async () => {
    const res = await api(server, 'GET', '/v1/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', version: 'v0.1', release: expect.stringMatching(/^\d+\.\d+\.\d+\+([0-9a-f]{12}|unknown)$/) });
  });

  it("the start-up banner's example origin is on the API's own host name (issue 48: localhost beside 127.0.0.1 loses cookies)", () => {
    // Off a terminal the banner is a JSON log line (tests read the server through a pipe).
    const line = server.output().split('\n').find((l) => l.includes('"code":"listening"'))!;
    const banner = JSON.parse(line) as { address: string; example_origin: string };
    const api = new URL(banner.address);
    const origin = new URL(banner.example_origin);
    expect(origin.hostname).toBe(api.hostname);
  });

  it('every response carries a new UUID X-Request-ID', async () => {
    const a = await api(server, 'GET', '/v1/health');
    const b = await api(server, 'GET', '/nowhere');
    for (const res of [a, b]) expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('a valid client X-Request-ID is echoed, an invalid one replaced', async () => {
    const echoed = await api(server, 'GET', '/v1/health', { headers: { 'x-request-id': 'trace-123.abc_DEF' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123.abc_DEF');
    const replaced = await api(server, 'GET', '/v1/health', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const tooLong = await api(server, 'GET', '/v1/health', { headers: { 'x-request-id': 'a'.repeat(129) } });
    expect(tooLong.headers.get('x-request-id')).not.toBe('a'.repeat(129));
  });

  it('the request id appears in the log line of that request', async () => {
    await api(server, 'GET', '/v1/health', { headers: { 'x-request-id': 'find-me-in-the-log' } });
    const line = (await server.logs()).split('\n').find((l) => l.includes('find-me-in-the-log'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!).reqId).toBe('find-me-in-the-log');
  });

  it('an unknown route is 404 {detail}', async () => {
    const res = await api(server, 'POST', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('a query that fails validation is 400 {detail}', async () => {
    const res = await api(server, 'GET', `/.well-known/jwks.json?app_id=${'x'.repeat(100)}`);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['detail', 'code']);
  });

  it('malformed JSON is 400 {detail} and a body over 1 MiB is 413 {detail}', async () => {
    const bad = await api(server, 'POST', '/v1/signups', { publishableKey: app.publishable_key, rawBody: '{"email":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ detail: 'body is not valid JSON', code: 'validation_failed' });
    const big = await api(server, 'POST', '/v1/signups', {
      publishableKey: app.publishable_key,
      rawBody: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024 + 10) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(big.status).toBe(413);
    expect(Object.keys(big.body)).toEqual(['detail', 'code']);
    expect(big.headers.get('x-request-id')).toBeTruthy();
  });

  it('a body that fails its schema is 400 {detail} naming the field, never the framework shape', async () => {
    const res = await api(server, 'POST', '/v1/signups', { publishableKey: app.publishable_key, body: { password: 12 } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    expect(res.body.detail).toMatch(/email/);
  });

  it('GET /openapi.json is generated from the route schemas; /docs serves the reference UI', async () => {
    const doc = await api(server, 'GET', '/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(doc.body.paths['/v1/health']).toBeDefined();
    expect(doc.body.paths['/.well-known/jwks.json']).toBeDefined();
    const ui = await fetch(`${server.url}/docs`, { redirect: 'follow' });
    expect(ui.status).toBe(200);
    expect(await ui.text()).toMatch(/swagger/i);
  });
});

describe('interface 4.6 and contract 2: the JWKS', () => {
  it('by app_id: RSA signing keys with kid {app_id}:1 and a cache header', async () => {
    const res = await api(server, 'GET', `/.well-known/jwks.json?app_id=${app.app_id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.body.keys).toHaveLength(1);
    const [key] = res.body.keys;
    expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(key).toMatchObject({ kty: 'RSA', kid: `${app.app_id}:1`, use: 'sig', alg: 'RS256', e: 'AQAB' });
    expect(Buffer.from(key.n, 'base64url').length).toBe(256); // RSA-2048
  });

  it('by Host of a verified domain', async () => {
    const res = await api(server, 'GET', '/.well-known/jwks.json', { headers: { host: 'login.example.com' } });
    expect(res.status).toBe(200);
    expect(res.body.keys[0].kid).toBe(`${app.app_id}:1`);
  });

  it('an unknown app_id or an unverified Host is 404 {detail}', async () => {
    const unknown = await api(server, 'GET', '/.well-known/jwks.json?app_id=app_doesnotexist');
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toMatch(/not found/);
    const noHost = await api(server, 'GET', '/.well-known/jwks.json', { headers: { host: 'other.example.com' } });
    expect(noHost.status).toBe(404);
  });

  it('apps have different keys', async () => {
    const other = await createApp(server);
    const a = await api(server, 'GET', `/.well-known/jwks.json?app_id=${app.app_id}`);
    const b = await api(server, 'GET', `/.well-known/jwks.json?app_id=${other.app_id}`);
    expect(a.body.keys[0].n).not.toBe(b.body.keys[0].n);
    expect(b.body.keys[0].kid).toBe(`${other.app_id}:1`);
  });

  it('rotation publishes the new key first and keeps the old one', async () => {
    const fresh = await createApp(server);
    const before = await api(server, 'GET', `/.well-known/jwks.json?app_id=${fresh.app_id}`);
    await cliJson(server, ['app', 'rotate-keys', fresh.app_id]);
    const after = await api(server, 'GET', `/.well-known/jwks.json?app_id=${fresh.app_id}`);
    expect(after.body.keys.map((k: { kid: string }) => k.kid)).toEqual([`${fresh.app_id}:2`, `${fresh.app_id}:1`]);
    expect(after.body.keys[1].n).toBe(before.body.keys[0].n);
  });
});

describe('contract 1: secret key rotation', () => {
  it('rotate-secret: the old key works through the grace, a rotation without grace ends it at once', async () => {
    const rotating = await createApp(server);
    const list = (key: string) => api(server, 'GET', '/v1/users', { bearer: key });
    expect((await list(rotating.secret_key)).status).toBe(200);
    const graced = await cliJson<TestApp>(server, ['app', 'rotate-secret', rotating.app_id, '--keep-old-for', '600']);
    expect((await list(rotating.secret_key)).status).toBe(200);
    expect((await list(graced.secret_key)).status).toBe(200);
    const immediate = await cliJson<TestApp>(server, ['app', 'rotate-secret', rotating.app_id]);
    expect((await list(rotating.secret_key)).status).toBe(401);
    expect((await list(graced.secret_key)).status).toBe(401);
    expect((await list(immediate.secret_key)).status).toBe(200);
  });
});

describe('secrets at rest and in logs', () => {
  it('no private key or secret key is stored in clear', async () => {
    const secretApp = await createApp(server);
    const keys = await queryDatabase(server.databaseUrl, 'SELECT private_key_sealed, public_jwk FROM signing_keys');
    expect(keys.length).toBeGreaterThan(0);
    for (const row of keys) {
      expect(String(row.private_key_sealed)).toMatch(/^v1\./);
      expect(String(row.private_key_sealed)).not.toMatch(/PRIVATE KEY/);
      expect(JSON.parse(String(row.public_jwk))).not.toHaveProperty('d');
    }
    const apiKeys = await queryDatabase(server.databaseUrl, 'SELECT * FROM api_keys');
    const dump = JSON.stringify(apiKeys);
    expect(dump).not.toContain(secretApp.secret_key);
    expect(dump).not.toContain(secretApp.secret_key.slice(3));
    expect(dump).toContain(secretApp.publishable_key); // public by design
  });

  it('no secret key or private key appears in any log line', async () => {
    const logged = await createApp(server);
    await api(server, 'GET', '/v1/health', { bearer: logged.secret_key });
    const output = await server.logs();
    expect(output).not.toContain(logged.secret_key);
    expect(output).not.toContain(app.secret_key);
    expect(output).not.toMatch(/PRIVATE KEY/);
  });
});
