import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';

// docs/api.md (2026-12-01): a JSON body field that the route does not define is a 400 naming it, on
// every route; a misspelling is never dropped silently. The sweep reads the routes from the server's own
// OpenAPI document, so a route added later is swept too. Validation is the same code on both databases:
// SQLite only.

const UNKNOWN = 'zz_not_a_field';

interface BodySchema {
  required?: string[];
  additionalProperties?: unknown;
  $ref?: string;
}

interface Operation {
  parameters?: { in: string; name: string; schema: { format?: string; pattern?: string } }[];
  requestBody?: { content: Record<string, { schema: BodySchema & { anyOf?: BodySchema[] } }> };
}

describe.skipIf(TEST_DB !== 'sqlite')('contract 0: unknown body fields', () => {
  let env: AuthEnv;
  let app: TestApp;
  let operations: [method: string, path: string, operation: Operation][];
  /** A named body (`{$ref: '#/components/schemas/ColumnInput'}`) is the schema it names. */
  let named: (schema: BodySchema & { anyOf?: BodySchema[] }) => BodySchema & { anyOf?: BodySchema[] };

  beforeAll(async () => {
    env = await sharedAuthServer();
    app = await createApp(env.server);
    const document = (await api(env.server, 'GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, BodySchema> };
    };
    named = (schema) => (schema.$ref ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]! : schema);
    operations = Object.entries(document.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => [method.toUpperCase(), path, op] as [string, string, Operation]));
  });
  afterAll(async () => {
    await env?.stop();
  });

  /** The path with each parameter filled by a value of its schema (a UUID for ids). */
  const concrete = (path: string, op: Operation) =>
    path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const param = op.parameters?.find((p) => p.in === 'path' && p.name === name);
      // A custom provider's PUT is the {provider} route; the built-in names are routes of their own.
      // An id of a prefixed form (wh_ and 24 letters): one of that form, so the path passes and the body is what is judged.
      const prefixed = /^\^(\w+_)\[A-Za-z0-9\]\{(\d+)\}\$$/.exec(param?.schema.pattern ?? '');
      if (prefixed) return prefixed[1] + 'a'.repeat(Number(prefixed[2]));
      return param?.schema.format === 'uuid' ? randomUUID() : name === 'provider' ? (path.startsWith('/v1/oauth/providers/') ? 'oidc-k' : 'google') : 'k';
    });

  it('a misspelt `pasword` on POST /v1/signins is 400 naming it, and no email is sent', async () => {
    const user = await verifiedUser(env, app);
    const mailBefore = env.sink.messages.filter((m) => m.to.includes(user.email)).length;
    const res = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email, pasword: user.password } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('unknown field "pasword"');
    // A magic link asked for afterwards is the only mail since: the refused request wrote none.
    const link = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email, strategy: 'magic_link' } });
    expect(link.status).toBe(200);
    await env.sink.waitFor(user.email, { count: mailBefore + 1 });
    expect(env.sink.messages.filter((m) => m.to.includes(user.email))).toHaveLength(mailBefore + 1);
    // Spelt right, the same request signs in.
    expect((await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email, password: user.password } })).status).toBe(200);
  });

  it('every route with a JSON body refuses an extra field with 400 naming it (from the OpenAPI document)', async () => {
    const swept: string[] = [];
    for (const [method, path, op] of operations) {
      const body_ = op.requestBody?.content['application/json']?.schema;
      if (!body_) continue;
      // A body of several forms (a reset by code or by token): the first form.
      const whole = named(body_);
      const schema = named(whole.anyOf?.[0] ?? whole);
      // Its required fields present (their values are checked after the unknown field is found), one more.
      const body = { ...Object.fromEntries((schema.required ?? []).map((name) => [name, null])), [UNKNOWN]: 1 };
      const res = await api(env.server, method, concrete(path, op), { body });
      swept.push(`${method} ${path}`);
      if (schema.additionalProperties === true) {
        // The one open body: the provider's form_post callback, whose fields the provider decides.
        expect(path).toBe('/v1/oauth/{provider}/callback');
        expect(res.body?.detail ?? '', `${method} ${path}`).not.toMatch(/unknown field/);
        continue;
      }
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.detail, `${method} ${path}`).toBe(`unknown field "${UNKNOWN}"`);
    }
    // The sweep saw the routes it is about (sign-in, user creation, tables), not an empty document.
    expect(swept).toEqual(expect.arrayContaining(['POST /v1/signins', 'POST /v1/users', 'POST /v1/tables', 'PUT /v1/oauth/providers/google']));
    expect(swept.length).toBeGreaterThan(30);
  });

  it('a route that defines no body refuses a JSON object with fields, naming the first', async () => {
    const bodiless = operations.filter(([method, , op]) => method !== 'GET' && !op.requestBody);
    expect(bodiless.map(([method, path]) => `${method} ${path}`)).toEqual(expect.arrayContaining(['POST /v1/sessions/logout', 'DELETE /v1/users/{user_id}']));
    for (const [method, path, op] of bodiless) {
      const res = await api(env.server, method, concrete(path, op), { body: { [UNKNOWN]: 1 } });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.detail, `${method} ${path}`).toBe(`unknown field "${UNKNOWN}"`);
    }
  });

  it('a nested closed object names the field by its path; free-form records keep their fields', async () => {
    const hashcash = { challenge: 'c', nonce: 'n', nonse: 'n' };
    const signup = await api(env.server, 'POST', '/v1/signups', { publishableKey: app.publishable_key, body: { email: 'nested@example.com', hashcash } });
    expect(signup.status).toBe(400);
    expect(signup.body.detail).toBe('unknown field "hashcash.nonse"');
    const table = await api(env.server, 'POST', '/v1/tables', { bearer: app.secret_key, body: { name: 'notes', columns: [{ name: 'n', type: 'int', unique: true }] } });
    expect(table.status).toBe(400);
    expect(table.body.detail).toBe('unknown field "columns[0].unique"');
    // A row's data is the app's own columns: its fields are checked against them, not closed by the schema.
    const made = await api(env.server, 'POST', '/v1/tables', { bearer: app.secret_key, body: { name: 'notes', columns: [{ name: 'n', type: 'int' }] } });
    expect(made.status).toBe(201);
    const row = await api(env.server, 'POST', `/v1/tables/${made.body.table_id}/rows`, { bearer: app.secret_key, body: { data: { n: 1 } } });
    expect(row.status).toBe(201);
    // Unknown query parameters are ignored (docs/api.md).
    expect((await api(env.server, 'GET', '/v1/users?colour=red', { bearer: app.secret_key })).status).toBe(200);
  });
});
