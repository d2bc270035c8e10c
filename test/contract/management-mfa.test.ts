import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { cliJson, type TestApp } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, consoleApp, consoleUser, manage, tenantOwnedBy, type ConsoleUser } from '../helpers/console.js';
import { enrollTotp } from '../helpers/mfa.js';

// docs/management.md: the console app's `--mfa required` holds for console sessions on the Management API
// and on app data with X-App-Id, as it holds on the console app's own user routes (operators too).

let env: AuthEnv;
let console_: TestApp;
let owner: ConsoleUser;
let operator: ConsoleUser;
let tenantId: string;
let appId: string;
let apiToken: string;

beforeAll(async () => {
  env = await startAuthServer({ ADMIN_TOKEN, RATE_LIMITS: 'off' });
  console_ = await consoleApp(env.server);
  owner = await consoleUser(env, console_, 'owner');
  operator = await consoleUser(env, console_, 'operator');
  expect((await env.server.cli(['operator', 'add', '--email', operator.email])).code).toBe(0);
  tenantId = await tenantOwnedBy(env, owner);
  const app = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Shop' });
  expect(app.status, JSON.stringify(app.body)).toBe(201);
  appId = app.body.app_id;
  const token = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'ci', role: 'admin' });
  expect(token.status, JSON.stringify(token.body)).toBe(201);
  apiToken = token.body.token;
}, 180_000);
afterAll(async () => {
  await env?.stop();
});

describe("the console app's --mfa required", () => {
  it('refuses single-factor console sessions (member and operator) until they enroll; tokens and ADMIN_TOKEN are not sessions', async () => {
    // Before: single-factor sessions answer.
    expect((await manage(env.server, owner.token, 'GET', '/v1/tenants')).status).toBe(200);
    expect((await manage(env.server, operator.token, 'GET', '/v1/tenants')).status).toBe(200);
    expect((await cliJson<{ mfa: string }>(env.server, ['app', 'update', console_.app_id, '--mfa', 'required'])).mfa).toBe('required');

    for (const who of [owner, operator]) {
      for (const [method, path, body] of [
        ['GET', '/v1/tenants'],
        ['GET', `/v1/tenants/${tenantId}/members`],
        ['POST', `/v1/tenants/${tenantId}/tokens`, { name: 'sneaky', role: 'admin' }],
      ] as [string, string, unknown?][]) {
        const res = await manage(env.server, who.token, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.code).toBe('mfa_enrollment_required');
      }
      const data = await manage(env.server, who.token, 'GET', '/v1/users', undefined, appId);
      expect(data.status).toBe(403);
      expect(data.body.code).toBe('mfa_enrollment_required');
    }
    // Nothing was made by the refused POSTs.
    const tokens = await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/tenants/${tenantId}/tokens`);
    expect(tokens.body.tokens.map((t: { name: string }) => t.name)).toEqual(['ci']);
    // A tenant API token and ADMIN_TOKEN are not console sessions: the policy is not theirs.
    expect((await manage(env.server, apiToken, 'GET', `/v1/tenants/${tenantId}`)).status).toBe(200);
    expect((await manage(env.server, ADMIN_TOKEN, 'GET', '/v1/tenants')).status).toBe(200);
    // A bad token is still 401, not 403.
    expect((await manage(env.server, `${owner.token}x`, 'GET', '/v1/tenants')).status).toBe(401);

    // Enrolling through the console app's own routes stays open; the aal2 session then answers.
    const enrolled = await enrollTotp(env.server, console_, owner.token);
    const after = await manage(env.server, enrolled.accessToken, 'GET', `/v1/tenants/${tenantId}/members`);
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect((await manage(env.server, enrolled.accessToken, 'GET', '/v1/users', undefined, appId)).status).toBe(200);

    // Optional again: single-factor sessions answer again (the policy is read on every request).
    expect((await cliJson<{ mfa: string }>(env.server, ['app', 'update', console_.app_id, '--mfa', 'optional'])).mfa).toBe('optional');
    expect((await manage(env.server, operator.token, 'GET', '/v1/tenants')).status).toBe(200);
  }, 180_000);
});
