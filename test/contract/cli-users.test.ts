import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cliJson, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Issue 49: `gatehouse user list|show|update`, the same services as GET /v1/users, GET and PATCH
// /v1/users/{id}, on the server's own database.

let server: TestServer;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  server = await startServer({ RATE_LIMITS: '' }, { cliProcess: true });
  app = await createApp(server);
  other = await createApp(server, { tenantId: app.tenant_id });
});
afterAll(async () => {
  await server?.stop();
});

type CliUser = { id: string; email: string; public_metadata: object; private_metadata: object; banned: boolean };

describe('gatehouse user list|show|update', () => {
  it('lists, shows and updates a user; a ban from the CLI ends the session at once', async () => {
    const email = `cli.${Date.now().toString(36)}@example.com`;
    const created = await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email } });
    const userId = created.body.id as string;
    const listed = await cliJson<{ users: CliUser[]; total: number; next_cursor: string | null }>(server, ['user', 'list', app.app_id, '--email', email]);
    expect(listed).toMatchObject({ total: 1, next_cursor: null, users: [{ id: userId, email, banned: false }] });
    const updated = await cliJson<CliUser>(server, ['user', 'update', app.app_id, userId, '--public-metadata', '{"role":"admin"}', '--private-metadata', '{"plan":"pro"}']);
    expect(updated).toMatchObject({ id: userId, public_metadata: { role: 'admin' }, private_metadata: { plan: 'pro' } });
    expect(await cliJson<CliUser>(server, ['user', 'show', app.app_id, userId])).toEqual(updated);
    const token = (await api(server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: userId } })).body.token;
    expect((await api(server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token })).status).toBe(200);
    expect(await cliJson<CliUser>(server, ['user', 'update', app.app_id, userId, '--banned', 'on'])).toMatchObject({ banned: true });
    expect((await api(server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token })).status).toBe(401);
  });

  it('another app, an unknown user, no change, bad JSON or oversized metadata: exit 1 or 2, nothing changes', async () => {
    const email = `cli.${Date.now().toString(36)}b@example.com`;
    const userId = (await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email } })).body.id as string;
    for (const args of [
      ['user', 'show', other.app_id, userId],
      ['user', 'update', other.app_id, userId, '--banned', 'on'],
      ['user', 'show', app.app_id, '00000000-0000-4000-8000-000000000000'],
    ]) {
      const result = await server.cli(args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(/user not found/);
    }
    // Usage errors and a refused value (400) exit 2.
    const nothing = await server.cli(['user', 'update', app.app_id, userId]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/nothing to change/);
    expect((await server.cli(['user', 'update', app.app_id, userId, '--public-metadata', '[1]'])).code).toBe(2);
    const over = await server.cli(['user', 'update', app.app_id, userId, '--unsafe-metadata', JSON.stringify({ k: 'x'.repeat(8192) })]);
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(/at most 8192/);
    expect(await cliJson<CliUser>(server, ['user', 'show', app.app_id, userId])).toMatchObject({ banned: false, public_metadata: {} });
  });
});
