import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '@gatehouse/api-types';
import { sharedAuthServer, type AuthEnv, uniqueEmail, codeFor } from '../helpers/accounts.js';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';

// docs/api.md: `GET /openapi.json` is a document generated clients can work from. A client made
// from it by openapi-typescript (the checked-in types, kept current by `npm run openapi -- --check`) and
// openapi-fetch drives the API here as a new user would, objects under their real keys.

let env: AuthEnv;
let app: TestApp;
let document: Record<string, any>;

function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}

beforeAll(async () => {
  env = await sharedAuthServer();
  app = await createApp(env.server, { args: ['--hashcash', 'off'] });
  document = (await api(env.server, 'GET', '/openapi.json')).body;
});

afterAll(async () => {
  await env?.stop();
});

describe('0 openapi: the document', () => {
  // The document does not depend on the database: these two run in the SQLite pass only.
  it.skipIf(TEST_DB === 'postgres')('0 openapi: @redocly/cli lint with its recommended rules finds no error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-lint-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      const result = await run(process.execPath, ['node_modules/@redocly/cli/bin/cli.js', 'lint', file, '--format=summary']);
      expect(result.output).not.toMatch(/^error /m);
      expect(result.code, result.output).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it.skipIf(TEST_DB === 'postgres')('0 openapi: the checked-in document and generated types are current', async () => {
    const result = await run(process.execPath, ['dist/tools/openapi.js', '--check']);
    expect(result.code, result.output).toBe(0);
  }, 120_000);

  it('0 openapi: every operation has a unique operationId, public routes say security: [], servers names the base URL', () => {
    const ids: string[] = [];
    for (const item of Object.values(document.paths) as Record<string, any>[]) {
      for (const operation of Object.values(item)) ids.push(operation.operationId);
    }
    expect(ids.every((id) => typeof id === 'string' && /^[a-zA-Z][a-zA-Z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.paths['/v1/health'].get.security).toEqual([]);
    expect(document.paths['/.well-known/jwks.json'].get.security).toEqual([]);
    expect(document.paths['/v1/me'].get.security).toEqual([{ publishable: [], session: [] }]);
    expect(document.servers).toEqual([expect.objectContaining({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) })]);
  });

  it('0 openapi: object routes name their key parameter `key`, and uploads declare a binary body', () => {
    const objectPath = document.paths['/v1/buckets/{bucket_id}/objects/{key}'];
    expect(objectPath).toBeDefined();
    expect(Object.keys(document.paths).some((path) => path.includes('{*}'))).toBe(false);
    for (const operation of Object.values(objectPath) as any[]) {
      expect(operation.parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name).sort()).toEqual(['bucket_id', 'key']);
    }
    expect(objectPath.put.requestBody.content['*/*'].schema).toEqual({ type: 'string', format: 'binary' });
    // Downloads are the stored bytes, not JSON (issue 48): binary under any type, for 200 and a range's 206.
    for (const status of ['200', '206']) {
      expect(Object.keys(objectPath.get.responses[status].content)).toEqual(['*/*']);
      expect(objectPath.get.responses[status].content['*/*'].schema).toMatchObject({ type: 'string', format: 'binary' });
    }
  });

  it('0 openapi: redirect-only routes document their redirect and its Location (issue 48)', () => {
    const redirects = [
      ['/v1/sso/bridge', 'get', '302'],
      ['/v1/oauth/{provider}/callback', 'get', '302'],
      ['/v1/oauth/{provider}/callback', 'post', '302'],
      ['/v1/email/verify', 'post', '303'],
    ] as const;
    for (const [path, method, status] of redirects) {
      const answer = document.paths[path][method].responses[status];
      expect(answer.description, `${method} ${path}`).toMatch(/^Location: /);
      expect(answer.headers.Location.schema).toEqual({ type: 'string', format: 'uri' });
      expect(answer.content).toBeUndefined();
    }
    expect(document.components.schemas.Error.properties).toHaveProperty('detail');
    expect(document.components.schemas.Error.properties).toHaveProperty('code');
  });

  it('0 openapi: records and error answers are named once in components, referred to everywhere else (issue 47)', () => {
    const operations = (Object.values(document.paths) as Record<string, any>[]).flatMap((item) => Object.values(item));
    // Every error answer of every operation is the one named response; it carries {detail, code}.
    const errorAnswers = operations.flatMap((op: any) => Object.entries(op.responses).filter(([status]) => /^[45]/.test(status)).map(([, answer]) => answer));
    expect(errorAnswers.length).toBeGreaterThan(100);
    expect(new Set(errorAnswers.map((answer: any) => answer.$ref))).toEqual(new Set(['#/components/responses/Error']));
    expect(document.components.responses.Error.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    // The records stand once, under their names, and the operations answering them refer to them.
    const app201 = document.paths['/v1/tenants/{tenant_id}/apps'].post.responses['201'];
    expect(document.components.responses[app201.$ref.split('/').pop()].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/App' });
    expect(document.components.schemas.App.properties).toHaveProperty('publishable_key');
    expect(document.components.schemas.UserList.properties.users.items).toEqual({ $ref: '#/components/schemas/User' });
    for (const name of ['User', 'Me', 'MySession', 'Organization', 'OrganizationMember', 'Webhook', 'WebhookDelivery', 'Event', 'Table', 'Bucket', 'BucketObject']) {
      expect(document.components.schemas[name]?.type, name).toBe('object');
    }
    // No titled schema is left inline in an operation: each was moved to components.schemas.
    const inline: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (typeof node !== 'object' || node === null) return;
      if (typeof (node as { title?: unknown }).title === 'string') inline.push((node as { title: string }).title);
      Object.values(node).forEach(walk);
    };
    operations.forEach(walk);
    expect(inline).toEqual([]);
  });

  it('0 openapi: parameters the server defaults are optional', () => {
    const list = document.paths['/v1/users'].get.parameters as any[];
    const limit = list.find((p) => p.name === 'limit');
    expect(limit.schema.default).toBeDefined();
    expect(limit.required).not.toBe(true);
  });
});

describe('0 openapi: a generated client (openapi-typescript + openapi-fetch) round-trips the API', () => {
  const client = () => createClient<paths>({ baseUrl: env.server.url });
  const secret = () => ({ authorization: `Bearer ${app.secret_key}` });

  it('0 openapi client: health, JWKS, sign-up, verify, me, refresh, logout', async () => {
    const c = client();
    expect((await c.GET('/v1/health')).data).toEqual({ status: 'ok', version: 'v0.1', release: expect.stringMatching(/^\d+\.\d+\.\d+\+/) });
    const jwks = await c.GET('/.well-known/jwks.json', { params: { query: { app_id: app.app_id } } });
    expect(jwks.data?.keys.length).toBeGreaterThan(0);

    const email = uniqueEmail('client');
    const headers = { 'x-publishable-key': app.publishable_key };
    const signup = await c.POST('/v1/signups', { headers, body: { email, password: 'correct horse battery' } });
    expect(signup.response.status).toBe(200);
    const code = await codeFor(env.sink, email);
    const answer = await c.POST('/v1/verify-code', { headers, body: { email, code } });
    // A user with a second factor would get {mfa_required, mfa_token} (docs/mfa.md); this one has none.
    const verified = { data: answer.data && 'access_token' in answer.data ? answer.data : undefined };
    expect(verified.data?.user_id).toBe(signup.data?.user_id);

    const me = await c.GET('/v1/me', { headers: { ...headers, authorization: `Bearer ${verified.data!.access_token}` } });
    expect(me.data?.email).toBe(email);
    const refreshed = await c.POST('/v1/tokens/session', { headers, body: { refresh_token: verified.data!.refresh_token } });
    expect(refreshed.data?.access_token).toMatch(/^ey/);
    const signin = await c.POST('/v1/signins', { headers, body: { email, password: 'correct horse battery', strategy: 'password' } });
    expect(signin.response.status).toBe(200);
    const out = await c.POST('/v1/sessions/logout', { headers: { ...headers, authorization: `Bearer ${refreshed.data!.access_token}` } });
    expect(out.data).toEqual({ status: 'logged_out' });
  });

  it('0 openapi client: users, sign-in tokens and session revocation with the secret key', async () => {
    const c = client();
    const email = uniqueEmail('admin');
    const created = await c.POST('/v1/users', { headers: secret(), body: { email } });
    expect(created.response.status).toBe(201);
    const userId = created.data!.id;
    const listed = await c.GET('/v1/users', { headers: secret(), params: { query: { email } } });
    expect(listed.data?.users.map((u) => u.id)).toEqual([userId]);
    const one = await c.GET('/v1/users/{user_id}', { headers: secret(), params: { path: { user_id: userId } } });
    expect(one.data?.email).toBe(email);
    const token = await c.POST('/v1/sign_in_tokens', { headers: secret(), body: { user_id: userId } });
    expect(token.data?.token).toMatch(/^ey/);
    const missing = await c.GET('/v1/users/{user_id}', { headers: secret(), params: { path: { user_id: '00000000-0000-4000-8000-000000000000' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual({ detail: expect.any(String), code: expect.any(String) });
  });

  it('0 openapi client: a table, its rows and a query', async () => {
    const c = client();
    const table = await c.POST('/v1/tables', {
      headers: secret(),
      body: { name: `notes_${Date.now().toString(36)}`, columns: [{ name: 'title', type: 'text', required: true }] },
    });
    expect(table.response.status, JSON.stringify(table.error)).toBe(201);
    const tableId = table.data!.table_id;
    const row = await c.POST('/v1/tables/{table_id}/rows', { headers: secret(), params: { path: { table_id: tableId } }, body: { data: { title: 'first' } } });
    expect(row.response.status, JSON.stringify(row.error)).toBe(201);
    const rowId = row.data!.row_id;
    const patched = await c.PATCH('/v1/tables/{table_id}/rows/{row_id}', {
      headers: secret(),
      params: { path: { table_id: tableId, row_id: rowId } },
      body: { data: { title: 'second' } },
    });
    expect(patched.data?.data).toEqual({ title: 'second' });
    const query = await c.POST('/v1/tables/{table_id}/rows/query', {
      headers: secret(),
      params: { path: { table_id: tableId } },
      body: { filter: { field: 'title', op: 'eq', value: 'second' } },
    });
    expect(query.data?.rows.map((r) => r.row_id)).toEqual([rowId]);
    const got = await c.GET('/v1/tables/{table_id}/rows/{row_id}', { headers: secret(), params: { path: { table_id: tableId, row_id: rowId } } });
    expect(got.data?.row_id).toBe(rowId);
    const deleted = await c.DELETE('/v1/tables/{table_id}/rows/{row_id}', { headers: secret(), params: { path: { table_id: tableId, row_id: rowId } } });
    expect(deleted.data).toEqual({ status: 'deleted' });
    expect((await c.DELETE('/v1/tables/{table_id}', { headers: secret(), params: { path: { table_id: tableId } } })).data).toEqual({ status: 'deleted' });
  });

  it('0 openapi client: objects are stored under their real keys, `/` included', async () => {
    const c = client();
    const bucket = await c.POST('/v1/buckets', { headers: secret(), body: { name: `client-${Date.now().toString(36)}` } });
    expect(bucket.response.status).toBe(201);
    const bucketId = bucket.data!.bucket_id;
    const keys = ['photos/2026/a b.txt', 'photos/c.txt', 'top.txt'];
    for (const key of keys) {
      const put = await c.PUT('/v1/buckets/{bucket_id}/objects/{key}', {
        headers: { ...secret(), 'content-type': 'text/plain' },
        params: { path: { bucket_id: bucketId, key } },
        body: `bytes of ${key}`,
        bodySerializer: (body: string) => body,
      });
      expect(put.response.status, JSON.stringify(put.error)).toBe(200);
      expect(put.data?.key).toBe(key);
    }
    const listed = await c.GET('/v1/buckets/{bucket_id}/objects', { headers: secret(), params: { path: { bucket_id: bucketId }, query: { prefix: 'photos/' } } });
    expect(listed.data?.objects.map((o) => o.key).sort()).toEqual(['photos/2026/a b.txt', 'photos/c.txt']);
    for (const key of keys) {
      const got = await c.GET('/v1/buckets/{bucket_id}/objects/{key}', {
        headers: secret(),
        params: { path: { bucket_id: bucketId, key } },
        parseAs: 'text',
      });
      expect(got.data).toBe(`bytes of ${key}`);
    }
    // Bytes that are no UTF-8 text come back as they went, read as binary the document declares.
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x80]);
    const stored = await c.PUT('/v1/buckets/{bucket_id}/objects/{key}', {
      headers: { ...secret(), 'content-type': 'image/png' },
      params: { path: { bucket_id: bucketId, key: 'photos/pixel.png' } },
      body: png as unknown as string,
      bodySerializer: (body: unknown) => body as BodyInit,
    });
    expect(stored.response.status, JSON.stringify(stored.error)).toBe(200);
    const downloaded = await c.GET('/v1/buckets/{bucket_id}/objects/{key}', {
      headers: secret(),
      params: { path: { bucket_id: bucketId, key: 'photos/pixel.png' } },
      parseAs: 'arrayBuffer',
    });
    expect(downloaded.response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(downloaded.data as ArrayBuffer)).toEqual(png);
    const removed = await c.DELETE('/v1/buckets/{bucket_id}/objects/{key}', { headers: secret(), params: { path: { bucket_id: bucketId, key: keys[0]! } } });
    expect(removed.data).toEqual({ status: 'deleted' });
    const storage = await c.GET('/v1/buckets/storage', { headers: secret() });
    expect(storage.data?.buckets.find((b) => b.bucket_id === bucketId)?.object_count).toBe(3);
  });

  it('0 openapi client: billing and OAuth provider settings read with the secret key', async () => {
    const c = client();
    const billing = await c.GET('/v1/billing', { headers: secret() });
    expect(billing.data?.tenant_id).toBe(app.tenant_id);
    const providers = await c.GET('/v1/oauth/providers', { headers: secret() });
    expect(providers.data).toEqual({ providers: [] });
    const tables = await c.GET('/v1/tables/storage', { headers: secret() });
    expect(tables.data?.used_bytes).toBeTypeOf('number');
  });
});
