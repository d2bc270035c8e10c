import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Issue 7, findings 5 (numbers), 7 (CSRF), 8 (/metrics behind a proxy) and 9 (framework errors).
// docs/api.md and docs/auth.md and docs/rate-limits.md.

let server: TestServer;
let app: TestApp;

beforeAll(async () => {
  server = await startServer({ TRUST_PROXY: 'true' });
  app = await createApp(server, { args: ['--allowed-origin', 'https://shop.example.test', '--domain', 'app.example.test'] });
});
afterAll(async () => {
  await server?.stop();
});

function expectEnvelope(res: { status: number; headers: Headers; body: unknown }, status: number) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
  expect(res.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
}

async function signedIn() {
  const email = `csrf.${Date.now()}.${Math.random().toString(36).slice(2)}@example.com`;
  await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email, password: 'correct horse battery' } });
  const res = await api(server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password: 'correct horse battery' } });
  expect(res.status).toBe(200);
  return setCookies(res.headers);
}

describe('finding 5: every integer is a safe integer in its range, else 400', () => {
  it.each(['limit=1e309', 'limit=-Infinity', 'limit=NaN', 'offset=99999999999999999999', 'offset=10000001', 'limit=201', 'limit=0', 'offset=-1', 'limit=1.5'])(
    'GET /v1/users?%s → 400 {detail}',
    async (query) => {
      expectEnvelope(await api(server, 'GET', `/v1/users?${query}`, { bearer: app.secret_key }), 400);
    },
  );

  it('offset 10,000,000 is still accepted', async () => {
    const res = await api(server, 'GET', '/v1/users?offset=10000000', { bearer: app.secret_key });
    expect(res.status).toBe(200);
    expect(res.body.users).toEqual([]);
  });

  it('integers in JSON bodies: 1e400, 1e20 and -1e20 → 400', async () => {
    const user = await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email: `num.${Date.now()}@example.com` } });
    for (const value of ['1e400', '1e20', '-1e20', '9007199254740993']) {
      const res = await api(server, 'POST', '/v1/sign_in_tokens', {
        bearer: app.secret_key,
        rawBody: `{"user_id":"${user.body.id}","expires_in_seconds":${value}}`,
        headers: { 'content-type': 'application/json' },
      });
      expectEnvelope(res, 400);
    }
    const bot = await api(server, 'POST', '/v1/bot/auth', {
      publishableKey: app.publishable_key,
      rawBody: `{"bot_id":"${user.body.id}","timestamp":1e400,"signature":"AAAA"}`,
      headers: { 'content-type': 'application/json' },
    });
    expectEnvelope(bot, 400);
  });
});

describe('finding 7: a cookie-authenticated unsafe request needs an allowed Origin, whatever else it sends', () => {
  it('logout by cookie with the publishable key but no Origin, or a foreign Origin → 403; the session lives on', async () => {
    const cookies = await signedIn();
    const cookie = `__session=${cookies.__session.value}`;
    for (const headers of [{ cookie }, { cookie, origin: 'https://evil.example.com' }, { cookie, origin: 'null' }] as Record<string, string>[]) {
      const res = await api(server, 'POST', '/v1/sessions/logout', { publishableKey: app.publishable_key, headers });
      expectEnvelope(res, 403);
    }
    expect((await api(server, 'GET', '/v1/me', { publishableKey: app.publishable_key, headers: { cookie } })).status).toBe(200);
    // From an allowed origin, or the verified domain, it works.
    const ok = await api(server, 'POST', '/v1/sessions/logout', { publishableKey: app.publishable_key, headers: { cookie, origin: 'https://shop.example.test' } });
    expect(ok.status).toBe(200);
    const again = await signedIn();
    const byDomain = await api(server, 'POST', '/v1/sessions/logout', {
      publishableKey: app.publishable_key,
      headers: { cookie: `__session=${again.__session.value}`, origin: 'https://app.example.test' },
    });
    expect(byDomain.status).toBe(200);
  });

  it('refresh through the __refresh cookie with the publishable key but a foreign Origin → 403; the token is not spent', async () => {
    const cookies = await signedIn();
    const cookie = `__refresh=${cookies.__refresh.value}`;
    const refused = await api(server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, headers: { cookie, origin: 'https://evil.example.com' } });
    expectEnvelope(refused, 403);
    const missing = await api(server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, headers: { cookie } });
    expectEnvelope(missing, 403);
    const ok = await api(server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, headers: { cookie, origin: 'https://shop.example.test' } });
    expect(ok.status).toBe(200);
  });

  it('a Bearer token needs no Origin (it cannot ride along cross-site)', async () => {
    const cookies = await signedIn();
    const res = await api(server, 'POST', '/v1/sessions/logout', { publishableKey: app.publishable_key, bearer: cookies.__session.value });
    expect(res.status).toBe(200);
  });
});

describe('finding 8: /metrics without ADMIN_TOKEN trusts the socket, not X-Forwarded-For', () => {
  const metrics = (localAddress: string, headers: Record<string, string> = {}) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${server.url}/metrics`, { localAddress, headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });

  it('a client on another address claiming 127.0.0.1 through X-Forwarded-For → 403; the loopback socket → 200', async () => {
    expect(await metrics('127.0.0.2', { 'x-forwarded-for': '127.0.0.1' })).toBe(403);
    expect(await metrics('127.0.0.1')).toBe(200);
  });
});

describe('finding 9: router and parser errors answer {detail} with X-Request-ID', () => {
  it.each(['/v1/users/%E0%A4%A', '/v1/users/%ZZ', '/v1/tables/%C0%AF'])('malformed percent-encoding %s → 400', async (path) => {
    expectEnvelope(await api(server, 'GET', path, { bearer: app.secret_key }), 400);
  });

  it('an over-long path parameter → 414 {detail}', async () => {
    expectEnvelope(await api(server, 'GET', `/v1/users/${'a'.repeat(5000)}`, { bearer: app.secret_key }), 414);
  });

  it('an unknown route with invalid UTF-8 in the query → 404 {detail}', async () => {
    expectEnvelope(await api(server, 'GET', '/v1/nothing?q=%FF%FE', {}), 404);
  });

  it('a request the HTTP parser rejects → 400 {detail} with X-Request-ID', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toMatch(/\r\nX-Request-ID: [0-9a-f-]{36}\r\n/i);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ detail: expect.any(String), code: expect.any(String) });
  });
});

describe('a NUL character in any string a request brings → 400 {detail} on both databases, and nothing changes', () => {
  // PostgreSQL text cannot hold U+0000; the fuzzer found GET /.well-known/jwks.json?app_id=%00 answering 500 there.
  it.each([
    ['GET', '/.well-known/jwks.json?app_id=%00'],
    ['GET', `/.well-known/jwks.json?app_id=app_%00x`],
    ['GET', '/v1/users?email=a%00b%40example.com'],
    ['GET', '/v1/users/usr_%00'],
    ['GET', '/v1/tables/tbl_%00'],
    ['GET', '/v1/buckets/bkt_%00'],
  ])('%s %s → 400 or 404, never 500', async (method, path) => {
    const res = await api(server, method, path, { bearer: app.secret_key });
    expect(res.status).not.toBe(500);
    expect([400, 404]).toContain(res.status);
    expect(res.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
  });

  it('a NUL in a JSON value or key → 400 naming it; no user is made', async () => {
    const email = `nul.${Date.now()}@example.com`;
    for (const rawBody of [`{"email":"${email}","password":"correct horse\\u0000battery"}`, `{"email":"${email}","pass\\u0000word":"x"}`, `{"email":"${email}\\u0000"}`]) {
      const res = await api(server, 'POST', '/v1/users', { bearer: app.secret_key, rawBody, headers: { 'content-type': 'application/json' } });
      expectEnvelope(res, 400);
      expect(res.body.detail).toMatch(/NUL/);
    }
    const list = await api(server, 'GET', `/v1/users?email=${encodeURIComponent(email)}`, { bearer: app.secret_key });
    expect(list.status).toBe(200);
    expect(list.body.users).toEqual([]);
  });

  it('the key __proto__, and constructor where it holds prototype, are dropped from a JSON body, spelled out or escaped; other escapes pass', async () => {
    const created = await api(server, 'POST', '/v1/tables', { bearer: app.secret_key, body: { name: 'proto_keys', columns: [{ name: 'title', type: 'text' }] } });
    expect(created.status).toBe(201);
    const rows = `/v1/tables/${created.body.table_id}/rows`;
    for (const rawBody of [
      '{"data":{"title":"pen","constructor":{"prototype":{"admin":true}}}}',
      '{"data":{"title":"pen","__proto__":{"admin":true}}}',
      '{"data":{"title":"pen","\\u0063onstructor":{"prototype":{}}}}',
      '{"data":{"title":"pen","\\u005f_proto__":{"admin":true}}}',
    ]) {
      const res = await api(server, 'POST', rows, { bearer: app.secret_key, rawBody, headers: { 'content-type': 'application/json' } });
      expect(res.status, rawBody).toBe(201);
      expect(res.body.data).toEqual({ title: 'pen' });
    }
    // An escape that is neither: kept as its character (and an unknown field is still refused by name).
    const escaped = await api(server, 'POST', rows, { bearer: app.secret_key, rawBody: '{"data":{"title":"p\\u00e9n"}}', headers: { 'content-type': 'application/json' } });
    expect(escaped.status).toBe(201);
    expect(escaped.body.data).toEqual({ title: 'pén' });
    for (const rawBody of ['{"data":{"title":"pen","colour":"red"}}', '{"data":{"title":"pen","constructor":"x"}}']) {
      const unknown = await api(server, 'POST', rows, { bearer: app.secret_key, rawBody, headers: { 'content-type': 'application/json' } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.detail).toMatch(/colour|constructor/);
    }
  });

  it('a NUL in a form body (the e-mail link confirmation) → 400', async () => {
    const res = await api(server, 'POST', '/v1/email/verify', {
      rawBody: 'token=abc%00def',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `http://127.0.0.1:${server.port}` },
    });
    expect(res.status).toBe(400);
  });
});

describe('issue 35, finding 5: JSON bodies nest at most 64 levels; only prototype-poisoning keys are dropped', () => {
  const nest = (levels: number, leaf: unknown = 'deep'): unknown => (levels === 0 ? leaf : { n: nest(levels - 1, leaf) });
  const send = (method: string, path: string, rawBody: string) => api(server, method, path, { bearer: app.secret_key, rawBody, headers: { 'content-type': 'application/json' } });

  it('35.5 a row PATCH with a 5,000-level data.meta → 400 {detail} and the row unchanged; 64 levels pass; a column named constructor is written and read back; __proto__ is dropped', async () => {
    const table = await api(server, 'POST', '/v1/tables', {
      bearer: app.secret_key,
      body: { name: 'deep_json', columns: [{ name: 'meta', type: 'json' }, { name: 'constructor', type: 'text' }] },
    });
    expect(table.status).toBe(201);
    const rows = `/v1/tables/${table.body.table_id}/rows`;
    const row = await api(server, 'POST', rows, { bearer: app.secret_key, body: { data: { meta: { a: 1 }, constructor: 'made' } } });
    expect(row.status).toBe(201);
    expect(row.body.data).toEqual({ meta: { a: 1 }, constructor: 'made' });
    const rowPath = `${rows}/${row.body.row_id}`;

    // Built as text: JSON.stringify of a 5,000-level value would itself overflow the stack.
    const deep = `{"data":{"meta":${'{"n":'.repeat(5_000)}1${'}'.repeat(5_000)}}}`;
    expectEnvelope(await send('PATCH', rowPath, deep), 400);
    expect((await send('PATCH', rowPath, deep)).body.detail).toMatch(/64 levels/);
    // Every route parses bodies the same way.
    expectEnvelope(await send('POST', '/v1/users', `{"email":${'['.repeat(5_000)}${']'.repeat(5_000)}}`), 400);
    expect((await api(server, 'GET', rowPath, { bearer: app.secret_key })).body.data).toEqual({ meta: { a: 1 }, constructor: 'made' });

    // The body {"data":{"meta":…}} is 2 levels, so a meta of 62 levels makes a 64-level body: accepted whole; 65 is not.
    const meta = nest(60, { constructor: 'kept', list: [1] }) as object;
    const ok = await send('PATCH', rowPath, JSON.stringify({ data: { meta, constructor: 'changed' } }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data).toEqual({ meta, constructor: 'changed' });
    expectEnvelope(await send('PATCH', rowPath, JSON.stringify({ data: { meta: nest(63) } })), 400);
    const read = await api(server, 'GET', rowPath, { bearer: app.secret_key });
    expect(read.body.data).toEqual({ meta, constructor: 'changed' });

    // __proto__ is dropped at any depth (a json value keeps the rest), and pollutes nothing.
    const poisoned = await send('PATCH', rowPath, '{"data":{"meta":{"x":1,"__proto__":{"admin":true}},"__proto__":{"admin":true}}}');
    expect(poisoned.status).toBe(200);
    expect(poisoned.body.data).toEqual({ meta: { x: 1 }, constructor: 'changed' });
    expect(({} as { admin?: boolean }).admin).toBeUndefined();
  });
});

