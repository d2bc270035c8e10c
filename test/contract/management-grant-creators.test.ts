import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { TEST_DB } from '../helpers/db.js';
import type { TestApp } from '../helpers/fixtures.js';
import { addMember, ADMIN_TOKEN, consoleApp, consoleUser, manage, tenantOwnedBy, type ConsoleUser } from '../helpers/console.js';

// docs/management.md: tokens and invitations record their maker (created_by) and never outlive the maker's
// right to make them: removing the maker, or demoting them below their role, revokes them in the same write.

let env: AuthEnv;
let console_: TestApp;
let owner: ConsoleUser;

beforeAll(async () => {
  // The worker's shared server of this environment (test/suite.mjs SHARED): this file's tenants, apps and console users are its own.
  env = await sharedAuthServer({ ADMIN_TOKEN });
  console_ = await consoleApp(env.server);
  owner = await consoleUser(env, console_, 'owner');
}, 180_000);
afterAll(async () => {
  await env?.stop();
});

const liveTokens = async (tenantId: string) => (await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/tenants/${tenantId}/tokens`)).body.tokens.map((t: { name: string }) => t.name).sort();
const pendingInvitations = async (tenantId: string) =>
  (await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/tenants/${tenantId}/invitations`)).body.invitations.filter((i: { status: string }) => i.status === 'pending').map((i: { email: string }) => i.email).sort();

describe('what a member made goes with them', () => {
  it("a removed admin's token (and the token its token made) and pending invitations are revoked; the token is refused", async () => {
    const tenantId = await tenantOwnedBy(env, owner, 'Removal');
    const admin = await consoleUser(env, console_, 'admin');
    await addMember(env, tenantId, admin, 'admin');
    const made = await manage(env.server, admin.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'admin-made', role: 'admin' });
    expect(made.status).toBe(201);
    const child = await manage(env.server, made.body.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'token-made', role: 'viewer' });
    expect(child.status).toBe(201);
    expect((await manage(env.server, admin.token, 'POST', `/v1/tenants/${tenantId}/invitations`, { email: 'x@example.com', role: 'admin' })).status).toBe(201);
    const ownerMade = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'owner-made', role: 'admin' });
    expect((await manage(env.server, owner.token, 'DELETE', `/v1/tenants/${tenantId}/members/${admin.userId}`)).status).toBe(200);
    // The exploit: the removed admin's token answered 200 and made an app.
    const after = await manage(env.server, made.body.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Ghost' });
    expect(after.status).toBe(401);
    expect((await manage(env.server, child.body.token, 'GET', `/v1/tenants/${tenantId}`)).status).toBe(401);
    expect((await manage(env.server, ownerMade.body.token, 'GET', `/v1/tenants/${tenantId}`)).status).toBe(200);
    expect(await liveTokens(tenantId)).toEqual(['owner-made']);
    expect(await pendingInvitations(tenantId)).toEqual([]);
    const events = await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/tenants/${tenantId}/events`);
    expect(events.status).toBe(200);
    const revoked = events.body.events.filter((e: { type: string }) => e.type === 'tenant.token.revoked' || e.type === 'tenant.invitation.revoked');
    expect(revoked).toHaveLength(3);
  }, 180_000);

  it("demoting an owner to admin revokes the owner tokens and owner invitations they made, not the rest", async () => {
    const tenantId = await tenantOwnedBy(env, owner, 'Demotion');
    const second = await consoleUser(env, console_, 'second');
    await addMember(env, tenantId, second, 'owner');
    for (const role of ['owner', 'admin']) {
      expect((await manage(env.server, second.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: role, role })).status).toBe(201);
      expect((await manage(env.server, second.token, 'POST', `/v1/tenants/${tenantId}/invitations`, { email: `${role}@example.com`, role })).status).toBe(201);
    }
    expect((await manage(env.server, owner.token, 'PATCH', `/v1/tenants/${tenantId}/members/${second.userId}`, { role: 'admin' })).status).toBe(200);
    expect(await liveTokens(tenantId)).toEqual(['admin']);
    expect(await pendingInvitations(tenantId)).toEqual(['admin@example.com']);
  }, 180_000);

  it("a deleted console user's tokens and pending invitations are revoked with the account; the token is refused", async () => {
    const tenantId = await tenantOwnedBy(env, owner, 'Deletion');
    const admin = await consoleUser(env, console_, 'leaver');
    await addMember(env, tenantId, admin, 'admin');
    const made = await manage(env.server, admin.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'leaver-made', role: 'admin' });
    expect(made.status).toBe(201);
    expect((await manage(env.server, admin.token, 'POST', `/v1/tenants/${tenantId}/invitations`, { email: 'friend@example.com', role: 'viewer' })).status).toBe(201);
    const deleted = await manage(env.server, ADMIN_TOKEN, 'DELETE', `/v1/users/${admin.userId}`, undefined, console_.app_id);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    // The gap: the account was gone, its membership too, and its token still made apps.
    expect((await manage(env.server, made.body.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Ghost' })).status).toBe(401);
    expect(await liveTokens(tenantId)).toEqual([]);
    expect(await pendingInvitations(tenantId)).toEqual([]);
    const events = (await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/tenants/${tenantId}/events`)).body.events;
    const revoked = events.filter((e: { type: string }) => e.type === 'tenant.token.revoked' || e.type === 'tenant.invitation.revoked');
    expect(revoked.map((e: { data: { reason: string } }) => e.data.reason)).toEqual(['creator_removed', 'creator_removed']);
  }, 180_000);

  it("an operator's tokens and invitations in a tenant they are no member of end with the operator role", async () => {
    const tenantId = await tenantOwnedBy(env, owner, 'Operated');
    const operator = await consoleUser(env, console_, 'op');
    expect((await env.server.cli(['operator', 'add', '--email', operator.email])).code).toBe(0);
    const made = await manage(env.server, operator.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'operator-made', role: 'owner' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((await manage(env.server, operator.token, 'POST', `/v1/tenants/${tenantId}/invitations`, { email: 'op-friend@example.com', role: 'owner' })).status).toBe(201);
    const ownerMade = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'owner-made', role: 'viewer' });
    expect((await env.server.cli(['operator', 'remove', '--email', operator.email])).code).toBe(0);
    expect((await manage(env.server, made.body.token, 'GET', `/v1/tenants/${tenantId}`)).status).toBe(401);
    expect((await manage(env.server, ownerMade.body.token, 'GET', `/v1/tenants/${tenantId}`)).status).toBe(200);
    expect(await liveTokens(tenantId)).toEqual(['owner-made']);
    expect(await pendingInvitations(tenantId)).toEqual([]);
  }, 180_000);

  it.skipIf(TEST_DB !== 'postgres')('a member removed while making a token: the token never outlives the removal (PostgreSQL, concurrent)', async () => {
    for (let round = 0; round < 4; round++) {
      const tenantId = await tenantOwnedBy(env, owner, `Race ${round}`);
      const admin = await consoleUser(env, console_, `race${round}`);
      await addMember(env, tenantId, admin, 'admin');
      const [made, removed] = await Promise.all([
        manage(env.server, admin.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'racing', role: 'admin' }),
        manage(env.server, owner.token, 'DELETE', `/v1/tenants/${tenantId}/members/${admin.userId}`),
      ]);
      expect(removed.status).toBe(200);
      expect([201, 404], JSON.stringify(made.body)).toContain(made.status);
      expect(await liveTokens(tenantId)).toEqual([]);
      if (made.status === 201) expect((await manage(env.server, made.body.token, 'GET', `/v1/tenants/${tenantId}`)).status).toBe(401);
    }
  }, 180_000);
});
