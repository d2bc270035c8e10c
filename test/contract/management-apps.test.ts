import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { api, cliJson, type TestApp } from '../helpers/fixtures.js';
import { addMember, ADMIN_TOKEN, consoleApp, consoleUser, manage, tenantOwnedBy, type ConsoleUser } from '../helpers/console.js';

// docs/management.md: a tenant's apps and keys through the Management API, tenant API tokens, and app data
// with a Console credential and X-App-Id on the Secret routes, as each role allows.

let env: AuthEnv;
let console_: TestApp;
let owner: ConsoleUser;
let admin: ConsoleUser;
let viewer: ConsoleUser;
let tenantId: string;
let app: { app_id: string; secret_key: string; publishable_key: string };

beforeAll(async () => {
  // The worker's shared server of this environment (test/suite.mjs SHARED): this file's tenants, apps and console users are its own.
  env = await sharedAuthServer({ ADMIN_TOKEN });
  console_ = await consoleApp(env.server);
  owner = await consoleUser(env, console_, 'owner');
  admin = await consoleUser(env, console_, 'admin');
  viewer = await consoleUser(env, console_, 'viewer');
  tenantId = await tenantOwnedBy(env, owner);
  await addMember(env, tenantId, admin, 'admin');
  await addMember(env, tenantId, viewer, 'viewer');
  const created = await manage(env.server, admin.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Shop', hashcash_difficulty: 0 });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  app = created.body;
}, 180_000);
afterAll(async () => {
  await env?.stop();
});

describe('apps', () => {
  it('POST answers the app with both keys, as app create --json; GET and the CLI show the same settings', async () => {
    const created = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/apps`, {
      name: 'Blog',
      allowed_origins: ['https://blog.example.test'],
      verification_method: 'both',
      token_claims: { plan: '{{user.public_metadata.plan}}' },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret_key).toMatch(/^sk_/);
    expect(created.body.publishable_key).toMatch(/^pk_/);
    const cli = await cliJson<Record<string, unknown>>(env.server, ['app', 'show', created.body.app_id]);
    const shown = await manage(env.server, viewer.token, 'GET', `/v1/apps/${created.body.app_id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.secret_key).toBeUndefined();
    const { secret_keys: _keys, ...settings } = cli;
    expect(shown.body).toEqual(settings);
    expect(shown.body).toMatchObject({ allowed_origins: ['https://blog.example.test'], verification_method: 'both', token_claims: { plan: '{{user.public_metadata.plan}}' } });
    expect((await api(env.server, 'GET', '/v1/users', { bearer: created.body.secret_key })).status).toBe(200);
    const list = await manage(env.server, viewer.token, 'GET', `/v1/tenants/${tenantId}/apps`);
    expect(list.body.apps.map((a: { app_id: string }) => a.app_id)).toEqual(expect.arrayContaining([app.app_id, created.body.app_id]));
    expect(JSON.stringify(list.body)).not.toContain('sk_');
  }, 180_000);

  it('PATCH changes settings and answers the app; bad values are 400 and change nothing', async () => {
    const patched = await manage(env.server, admin.token, 'PATCH', `/v1/apps/${app.app_id}`, { name: 'Shop 2', self_delete: false, mfa: 'required', tables_limit_bytes: 1000 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Shop 2', self_delete: false, mfa: 'required', tables_limit_bytes: 1000 });
    expect((await manage(env.server, admin.token, 'PATCH', `/v1/apps/${app.app_id}`, { hashcash_difficulty: 99 })).status).toBe(400);
    expect((await manage(env.server, admin.token, 'PATCH', `/v1/apps/${app.app_id}`, { allowed_origins: ['not a url'] })).status).toBe(400);
    expect((await manage(env.server, admin.token, 'PATCH', `/v1/apps/${app.app_id}`, { pasword: 'x' })).status).toBe(400);
    const back = await manage(env.server, admin.token, 'PATCH', `/v1/apps/${app.app_id}`, { mfa: 'optional', self_delete: true, tables_limit_bytes: null });
    expect(back.body).toMatchObject({ name: 'Shop 2', hashcash_difficulty: 0, allowed_origins: [], mfa: 'optional', tables_limit_bytes: null });
  }, 180_000);

  it('48 cookie_domain: a parent of the verified domain, set and cleared through PATCH; its rule holds across both settings', async () => {
    const path = `/v1/apps/${app.app_id}`;
    const without = await manage(env.server, ADMIN_TOKEN, 'PATCH', path, { cookie_domain: 'shop.example.test' });
    expect(without.status).toBe(400);
    expect(without.body.code).toBe('invalid_cookie_domain');
    const domain = `auth.${app.app_id.toLowerCase().replace(/[^a-z0-9]/g, '')}.example.test`;
    const parent = domain.slice('auth.'.length);
    // The two settings are the operator's: a tenant admin and a tenant token get 403 and nothing changes.
    const made = await manage(env.server, admin.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'domains', role: 'admin' });
    for (const caller of [admin.token, made.body.token as string]) {
      for (const body of [{ domain }, { cookie_domain: parent }, { domain: '127.0.0.1' }]) {
        const refused = await manage(env.server, caller, 'PATCH', path, body);
        expect(refused.status, JSON.stringify(body)).toBe(403);
        expect(refused.body.code).toBe('operator_only_setting');
      }
      const create = await manage(env.server, caller, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Squat', domain: 'squat.example.test' });
      expect(create.status).toBe(403);
      expect(create.body.code).toBe('operator_only_setting');
    }
    expect((await manage(env.server, viewer.token, 'GET', path)).body).toMatchObject({ domain: null, cookie_domain: null });
    // The operator may not give an app the server's own host (keyless requests to it would resolve to the app).
    const own = await manage(env.server, ADMIN_TOKEN, 'PATCH', path, { domain: '127.0.0.1' });
    expect(own.status).toBe(400);
    expect(own.body.code).toBe('invalid_domain');
    const set = await manage(env.server, ADMIN_TOKEN, 'PATCH', path, { domain, cookie_domain: parent });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ domain, cookie_domain: parent });
    // The verified domain cannot move out from under it, nor go; nothing changes on a refusal.
    for (const body of [{ domain: 'auth.elsewhere.test' }, { domain: null }, { cookie_domain: 'example' }, { cookie_domain: 'other.example.test' }]) {
      const refused = await manage(env.server, ADMIN_TOKEN, 'PATCH', path, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.code).toBe('invalid_cookie_domain');
    }
    const shown = await cliJson<Record<string, unknown>>(env.server, ['app', 'show', app.app_id]);
    expect(shown).toMatchObject({ domain, cookie_domain: parent });
    const cleared = await manage(env.server, ADMIN_TOKEN, 'PATCH', path, { cookie_domain: null, domain: null });
    expect(cleared.body).toMatchObject({ domain: null, cookie_domain: null });
  }, 180_000);

  it('secret key rotation with a grace, and signing key rotation', async () => {
    const rotated = await manage(env.server, admin.token, 'POST', `/v1/apps/${app.app_id}/secret_keys`, { keep_old_for_seconds: 3600 });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toEqual({ secret_key: expect.stringMatching(/^sk_/), old_key_expires_at: expect.any(String) });
    expect((await api(env.server, 'GET', '/v1/users', { bearer: app.secret_key })).status).toBe(200);
    const now = await manage(env.server, admin.token, 'POST', `/v1/apps/${app.app_id}/secret_keys`, {});
    expect((await api(env.server, 'GET', '/v1/users', { bearer: rotated.body.secret_key })).status).toBe(401);
    expect((await api(env.server, 'GET', '/v1/users', { bearer: now.body.secret_key })).status).toBe(200);
    app.secret_key = now.body.secret_key;
    const before = (await manage(env.server, viewer.token, 'GET', `/v1/apps/${app.app_id}`)).body.signing_key_id;
    const signing = await manage(env.server, admin.token, 'POST', `/v1/apps/${app.app_id}/signing_keys`);
    expect(signing.status).toBe(201);
    expect(signing.body.kid).not.toBe(before);
    expect((await manage(env.server, viewer.token, 'GET', `/v1/apps/${app.app_id}`)).body.signing_key_id).toBe(signing.body.kid);
  }, 180_000);

  it('DELETE marks the app gone at once: its key is refused and it is not found', async () => {
    const doomed = await manage(env.server, admin.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Doomed' });
    expect((await manage(env.server, admin.token, 'DELETE', `/v1/apps/${doomed.body.app_id}`)).body).toEqual({ status: 'deleted' });
    expect((await api(env.server, 'GET', '/v1/users', { bearer: doomed.body.secret_key })).status).toBe(401);
    expect((await manage(env.server, admin.token, 'GET', `/v1/apps/${doomed.body.app_id}`)).status).toBe(404);
  }, 180_000);

  it("the console app is the operator's alone; another tenant's app is 404 to a member", async () => {
    expect((await manage(env.server, owner.token, 'GET', `/v1/apps/${console_.app_id}`)).status).toBe(404);
    expect((await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/apps/${console_.app_id}`)).status).toBe(200);
    const stranger = await consoleUser(env, console_, 'stranger');
    const theirs = await tenantOwnedBy(env, stranger, 'Theirs');
    const their = await manage(env.server, stranger.token, 'POST', `/v1/tenants/${theirs}/apps`, { name: 'Theirs' });
    for (const [method, path, body] of [
      ['GET', `/v1/apps/${their.body.app_id}`],
      ['PATCH', `/v1/apps/${their.body.app_id}`, { name: 'Mine' }],
      ['DELETE', `/v1/apps/${their.body.app_id}`],
      ['POST', `/v1/apps/${their.body.app_id}/secret_keys`, {}],
      ['POST', `/v1/apps/${their.body.app_id}/signing_keys`],
    ] as const) {
      expect((await manage(env.server, owner.token, method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    // ... and its data, with X-App-Id.
    expect((await manage(env.server, owner.token, 'GET', '/v1/users', undefined, their.body.app_id)).status).toBe(404);
    expect((await manage(env.server, owner.token, 'GET', '/v1/tables', undefined, their.body.app_id)).status).toBe(404);
    expect((await api(env.server, 'GET', '/v1/users', { bearer: their.body.secret_key })).status).toBe(200);
  }, 180_000);
});

describe('tenant API tokens', () => {
  it('shown once, listed without the token, a role; GET /v1/tenants lists its own tenant; revoked → 401 at once', async () => {
    const made = await manage(env.server, admin.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'ci', role: 'admin', expires_in_days: 30 });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ token_id: expect.any(String), name: 'ci', role: 'admin', token: expect.stringMatching(/^tk_[A-Za-z0-9]{48}$/), expires_at: expect.any(String), created_at: expect.any(String) });
    expect((await manage(env.server, admin.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'root', role: 'owner' })).status).toBe(403);
    expect((await manage(env.server, viewer.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'mine', role: 'viewer' })).status).toBe(403);
    const list = await manage(env.server, viewer.token, 'GET', `/v1/tenants/${tenantId}/tokens`);
    expect(list.body.tokens.find((t: { token_id: string }) => t.token_id === made.body.token_id)).toEqual({ token_id: made.body.token_id, name: 'ci', role: 'admin', expires_at: made.body.expires_at, created_at: made.body.created_at });
    expect(JSON.stringify(list.body)).not.toContain(made.body.token);
    const token = made.body.token as string;
    expect((await manage(env.server, token, 'GET', '/v1/tenants')).body.tenants).toEqual([{ tenant_id: tenantId, name: 'Acme', role: 'admin', created_at: expect.any(String) }]);
    const ciApp = await manage(env.server, token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'From CI' });
    expect(ciApp.status).toBe(201);
    expect((await manage(env.server, token, 'GET', '/v1/users', undefined, ciApp.body.app_id)).status).toBe(200);
    expect((await manage(env.server, token, 'POST', '/v1/tenants', { name: 'Another' })).status).toBe(403);
    expect((await manage(env.server, admin.token, 'DELETE', `/v1/tenants/${tenantId}/tokens/${made.body.token_id}`)).body).toEqual({ status: 'deleted' });
    expect((await manage(env.server, token, 'GET', '/v1/tenants')).status).toBe(401);
    expect((await manage(env.server, token, 'GET', '/v1/users', undefined, ciApp.body.app_id)).status).toBe(401);
    expect((await manage(env.server, admin.token, 'DELETE', `/v1/tenants/${tenantId}/tokens/${made.body.token_id}`)).status).toBe(404);
  }, 180_000);
});

describe('app data with a Console credential and X-App-Id', () => {
  it('a member, a token and the secret key are the same caller on the user routes', async () => {
    const made = await manage(env.server, admin.token, 'POST', '/v1/users', { email: `by-admin-${Date.now()}@example.com` }, app.app_id);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const bySecret = await api(env.server, 'GET', `/v1/users/${made.body.id}`, { bearer: app.secret_key });
    const byViewer = await manage(env.server, viewer.token, 'GET', `/v1/users/${made.body.id}`, undefined, app.app_id);
    const byOperator = await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/users/${made.body.id}`, undefined, app.app_id);
    expect(byViewer.body).toEqual(bySecret.body);
    expect(byOperator.body).toEqual(bySecret.body);
    const tok = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'reader', role: 'viewer' });
    expect((await manage(env.server, tok.body.token, 'GET', `/v1/users/${made.body.id}`, undefined, app.app_id)).body).toEqual(bySecret.body);
  }, 180_000);

  it('without X-App-Id: 400 app_id_required; an unknown app: 404', async () => {
    for (const credential of [owner.token, ADMIN_TOKEN]) {
      const res = await manage(env.server, credential, 'GET', '/v1/users');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('app_id_required');
      expect((await manage(env.server, credential, 'GET', '/v1/tables')).body.code).toBe('app_id_required');
    }
    expect((await manage(env.server, owner.token, 'GET', '/v1/users', undefined, 'app_nothing')).status).toBe(404);
  }, 180_000);

  it("a viewer's every write is refused (403) and nothing changes; reads and rows/query pass", async () => {
    const table = await manage(env.server, admin.token, 'POST', '/v1/tables', { name: `notes_${Date.now()}`, columns: [{ name: 'title', type: 'text' }] }, app.app_id);
    expect(table.status, JSON.stringify(table.body)).toBe(201);
    const row = await manage(env.server, admin.token, 'POST', `/v1/tables/${table.body.table_id}/rows`, { data: { title: 'kept' } }, app.app_id);
    expect(row.status, JSON.stringify(row.body)).toBe(201);
    const user = await manage(env.server, admin.token, 'POST', '/v1/users', { email: `kept-${Date.now()}@example.com` }, app.app_id);
    const snapshot = async () => ({
      app: (await manage(env.server, owner.token, 'GET', `/v1/apps/${app.app_id}`)).body,
      users: (await api(env.server, 'GET', '/v1/users', { bearer: app.secret_key })).body,
      tables: (await api(env.server, 'GET', '/v1/tables', { bearer: app.secret_key })).body,
      rows: (await api(env.server, 'POST', `/v1/tables/${table.body.table_id}/rows/query`, { bearer: app.secret_key, body: {} })).body,
      tenant: (await manage(env.server, owner.token, 'GET', `/v1/tenants/${tenantId}`)).body,
      members: (await manage(env.server, owner.token, 'GET', `/v1/tenants/${tenantId}/members`)).body,
      tokens: (await manage(env.server, owner.token, 'GET', `/v1/tenants/${tenantId}/tokens`)).body,
      invitations: (await manage(env.server, owner.token, 'GET', `/v1/tenants/${tenantId}/invitations`)).body,
      apps: (await manage(env.server, owner.token, 'GET', `/v1/tenants/${tenantId}/apps`)).body,
    });
    const before = await snapshot();
    const writes: [string, string, unknown?, string?][] = [
      ['PATCH', `/v1/tenants/${tenantId}`, { name: 'Viewer was here' }],
      ['DELETE', `/v1/tenants/${tenantId}`],
      ['PATCH', `/v1/tenants/${tenantId}/members/${admin.userId}`, { role: 'viewer' }],
      ['DELETE', `/v1/tenants/${tenantId}/members/${admin.userId}`],
      ['POST', `/v1/tenants/${tenantId}/invitations`, { email: 'friend@example.com', role: 'viewer' }],
      ['POST', `/v1/tenants/${tenantId}/tokens`, { name: 'mine', role: 'viewer' }],
      ['POST', `/v1/tenants/${tenantId}/apps`, { name: 'Mine' }],
      ['PATCH', `/v1/apps/${app.app_id}`, { name: 'Mine' }],
      ['DELETE', `/v1/apps/${app.app_id}`],
      ['POST', `/v1/apps/${app.app_id}/secret_keys`, {}],
      ['POST', `/v1/apps/${app.app_id}/signing_keys`],
      ['POST', '/v1/users', { email: 'viewer-made@example.com' }, app.app_id],
      ['PATCH', `/v1/users/${user.body.id}`, { banned: true }, app.app_id],
      ['DELETE', `/v1/users/${user.body.id}`, undefined, app.app_id],
      ['POST', '/v1/sign_in_tokens', { user_id: user.body.id }, app.app_id],
      ['POST', '/v1/tables', { name: 'viewer_table' }, app.app_id],
      ['DELETE', `/v1/tables/${table.body.table_id}`, undefined, app.app_id],
      ['POST', `/v1/tables/${table.body.table_id}/rows`, { data: { title: 'no' } }, app.app_id],
      ['PATCH', `/v1/tables/${table.body.table_id}/rows/${row.body.row_id}`, { data: { title: 'no' } }, app.app_id],
      ['DELETE', `/v1/tables/${table.body.table_id}/rows/${row.body.row_id}`, undefined, app.app_id],
      ['POST', '/v1/buckets', { name: 'viewer-bucket' }, app.app_id],
    ];
    for (const [method, path, body, appId] of writes) {
      const res = await manage(env.server, viewer.token, method, path, body, appId);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(403);
    }
    expect(await snapshot()).toEqual(before);
    expect((await manage(env.server, viewer.token, 'GET', '/v1/users', undefined, app.app_id)).body).toEqual(before.users);
    const query = await manage(env.server, viewer.token, 'POST', `/v1/tables/${table.body.table_id}/rows/query`, {}, app.app_id);
    expect(query.status).toBe(200);
    expect(query.body.rows.map((r: { data: { title: string } }) => r.data.title)).toEqual(['kept']);
  }, 180_000);
});

describe('events of management actions', () => {
  it("each action names its actor: tenant-level ones in GET /v1/tenants/{t}/events (app_id null), an app's in its own log", async () => {
    const t = await tenantOwnedBy(env, owner, 'Audited');
    const made = await manage(env.server, owner.token, 'POST', `/v1/tenants/${t}/apps`, { name: 'Audited app' });
    await manage(env.server, owner.token, 'PATCH', `/v1/apps/${made.body.app_id}`, { self_delete: false, allowed_origins: ['https://a.example.test'] });
    await manage(env.server, owner.token, 'POST', `/v1/apps/${made.body.app_id}/secret_keys`, {});
    await manage(env.server, owner.token, 'POST', `/v1/apps/${made.body.app_id}/signing_keys`);
    const token = await manage(env.server, owner.token, 'POST', `/v1/tenants/${t}/tokens`, { name: 'ci', role: 'admin' });
    await manage(env.server, token.body.token, 'PATCH', `/v1/tenants/${t}`, { name: 'Audited 2' });
    await manage(env.server, token.body.token, 'DELETE', `/v1/apps/${made.body.app_id}`);
    await manage(env.server, owner.token, 'DELETE', `/v1/tenants/${t}/tokens/${token.body.token_id}`);

    const tenantLog = await manage(env.server, viewer.token, 'GET', `/v1/tenants/${t}/events`);
    expect(tenantLog.status).toBe(404);
    const log = await manage(env.server, owner.token, 'GET', `/v1/tenants/${t}/events?limit=200`);
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    // Events of one millisecond (one transaction's) have no order among them: compared as a set.
    const seen = log.body.events.map((e: any) => [e.type, e.actor.type, e.actor.id, e.app_id]);
    const member = owner.userId;
    const bySet = (list: unknown[][]) => list.map((e) => JSON.stringify(e)).sort();
    expect(bySet(seen)).toEqual(bySet([
      ['tenant.created', 'operator', null, null],
      ['tenant.invitation.created', 'operator', null, null],
      ['tenant.invitation.accepted', 'member', member, null],
      ['tenant.member.created', 'member', member, null],
      ['app.created', 'member', member, null],
      ['tenant.token.created', 'member', member, null],
      ['tenant.updated', 'token', token.body.token_id, null],
      ['app.deleted', 'token', token.body.token_id, null],
      ['tenant.token.revoked', 'member', member, null],
    ]));
    expect(JSON.stringify(log.body)).not.toContain(token.body.token);
    expect(log.body.events.find((e: any) => e.type === 'app.deleted').data).toEqual({ app_id: made.body.app_id, name: 'Audited app' });
    const types = await manage(env.server, owner.token, 'GET', `/v1/tenants/${t}/events?type=tenant.token.*`);
    expect(types.body.events.map((e: any) => e.type)).toEqual(['tenant.token.revoked', 'tenant.token.created']);
  }, 180_000);

  it("an app's management events are in its log, with the member as actor", async () => {
    const made = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Logged' });
    await manage(env.server, admin.token, 'PATCH', `/v1/apps/${made.body.app_id}`, { self_delete: false, allowed_origins: ['https://a.example.test'] });
    await manage(env.server, admin.token, 'POST', `/v1/apps/${made.body.app_id}/secret_keys`, { keep_old_for_seconds: 60 });
    await manage(env.server, admin.token, 'POST', `/v1/apps/${made.body.app_id}/signing_keys`);
    const log = await api(env.server, 'GET', '/v1/events', { bearer: made.body.secret_key });
    const shown = (await manage(env.server, viewer.token, 'GET', '/v1/events', undefined, made.body.app_id)).body;
    expect(shown).toEqual(log.body);
    expect(log.body.events.map((e: any) => [e.type, e.actor, e.app_id])).toEqual([
      ['app.signing_key_rotated', { type: 'member', id: admin.userId }, made.body.app_id],
      ['app.secret_key_rotated', { type: 'member', id: admin.userId }, made.body.app_id],
      ['app.updated', { type: 'member', id: admin.userId }, made.body.app_id],
    ]);
    expect(log.body.events[2].data).toEqual({ changed: ['allowed_origins', 'self_delete'] });
    expect(JSON.stringify(log.body)).not.toContain('sk_');
  }, 180_000);
});
