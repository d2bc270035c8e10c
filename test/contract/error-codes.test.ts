import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { signUp, startAuthServer, uniqueEmail, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type JsonResponse, type TestApp } from '../helpers/fixtures.js';

// contract 0 (2026-12-01): every error body is `{detail, code}`, `code` one word of the documented list.

let env: AuthEnv;
let app: TestApp;

beforeAll(async () => {
  env = await startAuthServer({ RATE_LIMITS: 'signin_email=2/60' });
  app = await createApp(env.server);
});
afterAll(async () => {
  await env?.stop();
});

/** The codes of the table under "## Error codes" in docs/api.md, in order. */
function documentedCodes(): string[] {
  const doc = readFileSync('docs/api.md', 'utf8');
  const section = doc.slice(doc.indexOf('## Error codes'));
  return [...section.matchAll(/^\| `([a-z0-9_]+)` \| [^|]+ \| [^|]+ \|$/gm)].map((m) => m[1]!);
}

/** A request that node:http cannot build (a bad percent-encoding), written on the socket. */
function rawGet(path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(env.server.url, { method: 'GET', path }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const signin = (body: Record<string, unknown>) => api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body });

describe('contract 0: error codes', () => {
  it('docs/api.md documents exactly the codes of src/errors.ts, once each', () => {
    const documented = documentedCodes();
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...ERROR_CODES].sort());
  });

  it('the OpenAPI Error schema names the same list, so generated clients type `code`', async () => {
    const { body } = await api(env.server, 'GET', '/openapi.json');
    const error = body.components.schemas.Error;
    expect(error.required).toEqual(expect.arrayContaining(['detail', 'code']));
    expect([...error.properties.code.enum].sort()).toEqual([...ERROR_CODES].sort());
  });

  it('a sweep of error paths: each answers {detail, code} with the expected, documented code', async () => {
    const documented = new Set(documentedCodes());
    const verified = await verifiedUser(env, app);
    const unverified = uniqueEmail('unverified');
    await signUp(env.server, app, { email: unverified, password: 'correct horse battery' });
    const json = { 'content-type': 'application/json' };
    const cases: [string, Promise<JsonResponse | { status: number; body: unknown }>, number, string][] = [
      ['unknown route', api(env.server, 'GET', '/v1/nowhere'), 404, 'route_not_found'],
      ['bad JSON', api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, rawBody: '{"email":', headers: json }), 400, 'validation_failed'],
      ['schema validation', signin({ email: 42 }), 400, 'validation_failed'],
      ['unknown body field', signin({ email: 'a@example.com', pasword: 'a misspelling' }), 400, 'unknown_field'],
      ['wrong content type', api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, rawBody: '<email/>', headers: { 'content-type': 'application/xml' } }), 415, 'unsupported_media_type'],
      ['body over 1 MiB', api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, rawBody: JSON.stringify({ email: 'x'.repeat(1024 * 1024 + 10) }), headers: json }), 413, 'body_too_large'],
      ['bad percent-encoding', rawGet('/v1/users/%E0%A4%A'), 400, 'malformed_request'],
      ['no credential', api(env.server, 'GET', '/v1/me', { publishableKey: app.publishable_key }), 401, 'unauthenticated'],
      ['unknown publishable key', api(env.server, 'GET', '/v1/me', { publishableKey: 'pk_made_up' }), 401, 'unauthenticated'],
      ['publishable key on a Secret route', api(env.server, 'GET', '/v1/users', { bearer: app.publishable_key }), 403, 'forbidden'],
      ['unknown user', api(env.server, 'GET', '/v1/users/00000000-0000-4000-8000-000000000000', { bearer: app.secret_key }), 404, 'not_found'],
      ['wrong password', signin({ email: verified.email, password: 'not the password', strategy: 'password' }), 401, 'invalid_credentials'],
      ['unverified email', signin({ email: unverified, password: 'correct horse battery', strategy: 'password' }), 401, 'email_not_verified'],
    ];
    for (const [what, answer, status, code] of cases) {
      const res = await answer;
      expect(res.status, what).toBe(status);
      expect(res.body, what).toEqual({ detail: expect.any(String), code });
      expect(documented.has(code), what).toBe(true);
    }
  });

  it('429 rate_limited once a window is full, with Retry-After', async () => {
    const email = uniqueEmail('limited');
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await signin({ email, password: 'not the password', strategy: 'password' }));
    expect(answers.map((a) => a.body.code)).toEqual(['invalid_credentials', 'invalid_credentials', 'rate_limited']);
    expect(answers[2]!.status).toBe(429);
    expect(Number(answers[2]!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a navigation route answering a person with a page names the same code in small print', async () => {
    const res = await api(env.server, 'GET', '/v1/sso/bridge?return_to=https://example.com/', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.body).toContain('Error code: unauthenticated');
    const json = await api(env.server, 'GET', '/v1/sso/bridge?return_to=https://example.com/');
    expect(json.body).toEqual({ detail: expect.any(String), code: 'unauthenticated' });
  });
});
