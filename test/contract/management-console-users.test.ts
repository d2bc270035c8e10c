import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { cliJson, type TestApp } from '../helpers/fixtures.js';
import { addMember, ADMIN_TOKEN, consoleApp, consoleUser, manage, tenantOwnedBy } from '../helpers/console.js';

// docs/management.md, docs/privacy.md: operators made and ended write their events (CLI, setup link, a
// console user deleted), and a deleted console user leaves no tenant membership or operator role behind.

let env: AuthEnv;
let console_: TestApp;

beforeAll(async () => {
  env = await startAuthServer({ ADMIN_TOKEN, RATE_LIMITS: 'off' });
  console_ = await consoleApp(env.server);
}, 180_000);
afterAll(async () => {
  await env?.stop();
});

/** The console app's events of `type` about `userId`, newest first, as the operator reads them. */
async function consoleEvents(type: string, userId: string) {
  const log = await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/events?type=${type}&user_id=${userId}`, undefined, console_.app_id);
  expect(log.status, JSON.stringify(log.body)).toBe(200);
  return log.body.events as { type: string; actor: { type: string; id: string | null }; user_id: string; data: Record<string, unknown>; app_id: string }[];
}

const operatorEmails = async () => (await cliJson<{ operators: { email: string }[] }>(env.server, ['operator', 'list'])).operators.map((o) => o.email);

describe('operator changes are events', () => {
  it('a setup link consumed, operator add and operator remove each write theirs; a repeated add or remove writes none', { timeout: 240_000 }, async () => {
    const first = await consoleUser(env, console_, 'setup-op');
    const link = (await env.server.cli(['console', 'setup-link'])).stdout.trim();
    const token = new URL(link).searchParams.get('token');
    expect((await manage(env.server, first.token, 'POST', '/v1/console/setup', { token })).status).toBe(200);
    const viaLink = await consoleEvents('operator.added', first.userId);
    expect(viaLink).toHaveLength(1);
    expect(viaLink[0]).toMatchObject({ app_id: console_.app_id, user_id: first.userId, actor: { type: 'member', id: first.userId }, data: { via: 'setup_link' } });

    const named = await consoleUser(env, console_, 'named-op');
    expect((await env.server.cli(['operator', 'add', '--email', named.email])).code).toBe(0);
    expect((await env.server.cli(['operator', 'add', '--email', named.email])).code).toBe(0);
    expect(await consoleEvents('operator.added', named.userId)).toEqual([expect.objectContaining({ actor: { type: 'operator', id: null }, user_id: named.userId })]);
    expect(await operatorEmails()).toContain(named.email);
    expect((await env.server.cli(['operator', 'remove', '--email', named.email])).code).toBe(0);
    expect((await env.server.cli(['operator', 'remove', '--email', named.email])).code).toBe(0);
    expect(await consoleEvents('operator.removed', named.userId)).toEqual([expect.objectContaining({ actor: { type: 'operator', id: null } })]);
    expect(await operatorEmails()).not.toContain(named.email);
  });
});

describe('deleting a console user', () => {
  it('ends their memberships of every tenant and their operator role with the user, each with its event', { timeout: 240_000 }, async () => {
    const owner = await consoleUser(env, console_, 'keeper');
    const leaving = await consoleUser(env, console_, 'leaving');
    const t1 = await tenantOwnedBy(env, owner, 'One');
    const t2 = await tenantOwnedBy(env, leaving, 'Two');
    await addMember(env, t1, leaving, 'admin');
    expect((await env.server.cli(['operator', 'add', '--email', leaving.email])).code).toBe(0);

    // Another app's key or another tenant's member cannot reach the console app's users.
    expect((await manage(env.server, owner.token, 'DELETE', `/v1/users/${leaving.userId}`, undefined, console_.app_id)).status).toBe(404);
    const deleted = await manage(env.server, ADMIN_TOKEN, 'DELETE', `/v1/users/${leaving.userId}`, undefined, console_.app_id);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);

    const members = await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/tenants/${t1}/members`);
    expect(members.body.members.map((m: { user_id: string }) => m.user_id)).toEqual([owner.userId]);
    expect((await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/tenants/${t2}/members`)).body.members).toEqual([]);
    expect(await operatorEmails()).not.toContain(leaving.email);
    // Their session is gone with them: the console refuses it.
    expect((await manage(env.server, leaving.token, 'GET', '/v1/tenants')).status).toBe(401);

    for (const [tenantId, role] of [[t1, 'admin'], [t2, 'owner']] as const) {
      const log = await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/tenants/${tenantId}/events?type=tenant.member.deleted`);
      expect(log.body.events).toEqual([expect.objectContaining({ app_id: null, actor: { type: 'system', id: null }, data: { user_id: leaving.userId, role, reason: 'user_deleted' } })]);
    }
    expect(await consoleEvents('operator.removed', leaving.userId)).toEqual([expect.objectContaining({ actor: { type: 'system', id: null }, data: { reason: 'user_deleted' } })]);
    // The owner of tenant One is untouched.
    expect((await manage(env.server, owner.token, 'GET', `/v1/tenants/${t1}`)).status).toBe(200);
  });
});
