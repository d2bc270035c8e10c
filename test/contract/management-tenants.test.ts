import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { TEST_DB } from '../helpers/db.js';
import { api, cliJson, type TestApp } from '../helpers/fixtures.js';
import { addMember, ADMIN_TOKEN, consoleApp, consoleUser, invitationToken, manage, tenantOwnedBy, type ConsoleUser } from '../helpers/console.js';

// docs/management.md: the console app, the first-run setup link, operators, tenants, members and invitations
// over HTTP, with each role.

let env: AuthEnv;
let console_: TestApp;
let owner: ConsoleUser;
let tenantId: string;

beforeAll(async () => {
  env = await startAuthServer({ ADMIN_TOKEN, RATE_LIMITS: 'off' });
  console_ = await consoleApp(env.server);
  owner = await consoleUser(env, console_, 'owner');
  tenantId = await tenantOwnedBy(env, owner);
}, 180_000);
afterAll(async () => {
  await env?.stop();
});

describe('the console app and the first run', () => {
  it('console info names the console app; it has every app default and no tenant lists its tenant', async () => {
    const info = await cliJson<{ app_id: string; publishable_key: string; url: string }>(env.server, ['console', 'info']);
    expect(info).toEqual({ app_id: console_.app_id, publishable_key: console_.publishable_key, url: `${env.server.url}/console/` });
    const shown = await cliJson<Record<string, unknown>>(env.server, ['app', 'show', info.app_id]);
    expect(shown).toMatchObject({ verification_method: 'code', passwords_enabled: true, hashcash_enabled: null, mfa: 'optional' });
    const listed = await cliJson<{ tenants: { tenant_id: string }[] }>(env.server, ['tenant', 'list']);
    expect(listed.tenants.map((t) => t.tenant_id)).not.toContain(shown.tenant_id);
    // migrate again: still one console app
    expect((await env.server.cli(['migrate'])).code).toBe(0);
    expect((await cliJson<{ app_id: string }>(env.server, ['console', 'info'])).app_id).toBe(info.app_id);
  }, 180_000);

  it('serve printed one plain setup link on stderr, none in the JSON log on stdout; it is single use and makes the signed-in console user an operator', async () => {
    const lines = env.server.output().split('\n').filter((l) => l.includes('/console/setup?token='));
    expect(lines, 'one setup line').toHaveLength(1);
    expect(lines[0].startsWith('{')).toBe(false);
    expect(await env.server.stdoutLogs!()).not.toContain('/console/setup?token=');
    const token = new URL(/https?:\/\/\S+/.exec(lines[0])![0]).searchParams.get('token')!;
    // Another link left from another start (or node) before the first operator: it ends when that operator is made.
    const leftover = new URL((await env.server.cli(['console', 'setup-link'])).stdout.trim()).searchParams.get('token')!;
    const first = await consoleUser(env, console_, 'first-operator');
    expect((await manage(env.server, first.token, 'GET', '/v1/tenants')).body.tenants).toEqual([]);
    const done = await manage(env.server, first.token, 'POST', '/v1/console/setup', { token });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({ user_id: first.userId, operator: true });
    // Now an operator: every tenant.
    const all = await manage(env.server, first.token, 'GET', '/v1/tenants');
    expect(all.body.tenants.map((t: { tenant_id: string }) => t.tenant_id)).toContain(tenantId);
    const again = await manage(env.server, (await consoleUser(env, console_, 'late')).token, 'POST', '/v1/console/setup', { token });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('invalid_token');
    expect((await manage(env.server, (await consoleUser(env, console_, 'log-reader')).token, 'POST', '/v1/console/setup', { token: leftover })).body.code).toBe('invalid_token');
    expect((await cliJson<{ operators: { email: string }[] }>(env.server, ['operator', 'list'])).operators.map((o) => o.email)).toEqual([first.email]);
    // A fresh link from the CLI works once too.
    const fresh = (await env.server.cli(['console', 'setup-link'])).stdout.trim();
    expect(fresh).toMatch(new RegExp(`^${env.server.url}/console/setup\\?token=cst_[A-Za-z0-9]{43}$`));
    const second = await consoleUser(env, console_, 'second-operator');
    const freshToken = new URL(fresh).searchParams.get('token')!;
    expect((await manage(env.server, second.token, 'POST', '/v1/console/setup', { token: freshToken })).status).toBe(200);
    expect((await manage(env.server, second.token, 'POST', '/v1/console/setup', { token: freshToken })).status).toBe(400);
    expect((await manage(env.server, ADMIN_TOKEN, 'POST', '/v1/console/setup', { token: freshToken })).status).toBe(403);
    // operator remove: back to a member of nothing.
    expect((await env.server.cli(['operator', 'remove', '--email', second.email])).code).toBe(0);
    expect((await manage(env.server, second.token, 'GET', '/v1/tenants')).body.tenants).toEqual([]);
    expect((await env.server.cli(['operator', 'add', '--email', 'nobody@example.com'])).code).toBe(1);
  }, 180_000);

  it('a missing or bad Console credential is 401; a secret key is not one', async () => {
    expect((await api(env.server, 'GET', '/v1/tenants')).status).toBe(401);
    expect((await manage(env.server, 'tk_' + 'A'.repeat(48), 'GET', '/v1/tenants')).status).toBe(401);
    expect((await manage(env.server, ADMIN_TOKEN + 'x', 'GET', '/v1/tenants')).status).toBe(401);
  }, 180_000);
});

describe('tenants', () => {
  it('a console user creates none unless CONSOLE_OPEN_SIGNUP; the operator does; a member lists its own with its role', async () => {
    const stranger = await consoleUser(env, console_, 'stranger');
    expect((await manage(env.server, stranger.token, 'POST', '/v1/tenants', { name: 'Mine' })).status).toBe(403);
    const listed = await manage(env.server, owner.token, 'GET', '/v1/tenants');
    expect(listed.body).toEqual({ tenants: [{ tenant_id: tenantId, name: 'Acme', role: 'owner', created_at: expect.any(String) }], next_cursor: null });
    expect((await manage(env.server, ADMIN_TOKEN, 'POST', '/v1/tenants', { name: ' ' })).status).toBe(400);
    expect((await manage(env.server, ADMIN_TOKEN, 'POST', '/v1/tenants', { name: 'X', extra: 1 })).status).toBe(400);
  }, 180_000);

  it('the operator pages every tenant with limit and cursor', async () => {
    for (const name of ['P1', 'P2', 'P3']) await manage(env.server, ADMIN_TOKEN, 'POST', '/v1/tenants', { name });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/tenants?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.tenants.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.tenants.map((t: { tenant_id: string }) => t.tenant_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain(tenantId);
  }, 180_000);

  it('GET and PATCH by role; DELETE is the owners', async () => {
    const admin = await consoleUser(env, console_, 'admin');
    const viewer = await consoleUser(env, console_, 'viewer');
    const doomed = await tenantOwnedBy(env, owner, 'Doomed');
    await addMember(env, doomed, admin, 'admin');
    await addMember(env, doomed, viewer, 'viewer');
    expect((await manage(env.server, viewer.token, 'GET', `/v1/tenants/${doomed}`)).body).toMatchObject({ tenant_id: doomed, name: 'Doomed', role: 'viewer' });
    expect((await manage(env.server, viewer.token, 'PATCH', `/v1/tenants/${doomed}`, { name: 'No' })).status).toBe(403);
    const renamed = await manage(env.server, admin.token, 'PATCH', `/v1/tenants/${doomed}`, { name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', role: 'admin' });
    expect((await manage(env.server, admin.token, 'DELETE', `/v1/tenants/${doomed}`)).status).toBe(403);
    expect((await manage(env.server, viewer.token, 'DELETE', `/v1/tenants/${doomed}`)).status).toBe(403);
    const deleted = await manage(env.server, owner.token, 'DELETE', `/v1/tenants/${doomed}`);
    expect(deleted.body).toEqual({ status: 'deleted' });
    expect((await manage(env.server, owner.token, 'GET', `/v1/tenants/${doomed}`)).status).toBe(404);
  }, 180_000);

  it("a member of tenant A gets 404 on tenant B's tenant, members, invitations, tokens and apps", async () => {
    const other = await consoleUser(env, console_, 'other-owner');
    const b = await tenantOwnedBy(env, other, 'Beta');
    for (const [method, path, body] of [
      ['GET', `/v1/tenants/${b}`],
      ['PATCH', `/v1/tenants/${b}`, { name: 'Mine now' }],
      ['DELETE', `/v1/tenants/${b}`],
      ['GET', `/v1/tenants/${b}/members`],
      ['DELETE', `/v1/tenants/${b}/members/${other.userId}`],
      ['GET', `/v1/tenants/${b}/invitations`],
      ['POST', `/v1/tenants/${b}/invitations`, { email: owner.email, role: 'owner' }],
      ['GET', `/v1/tenants/${b}/tokens`],
      ['POST', `/v1/tenants/${b}/tokens`, { name: 'ci', role: 'owner' }],
      ['GET', `/v1/tenants/${b}/apps`],
      ['POST', `/v1/tenants/${b}/apps`, { name: 'Stolen' }],
    ] as const) {
      const res = await manage(env.server, owner.token, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await manage(env.server, other.token, 'GET', `/v1/tenants/${b}`)).body.name).toBe('Beta');
    expect((await manage(env.server, other.token, 'GET', `/v1/tenants/${b}/members`)).body.members).toHaveLength(1);
  }, 180_000);
});

describe('members', () => {
  it('list, change a role, remove; an admin cannot touch owners; a member may leave', async () => {
    const admin = await consoleUser(env, console_, 'm-admin');
    const viewer = await consoleUser(env, console_, 'm-viewer');
    const t = await tenantOwnedBy(env, owner, 'Members');
    await addMember(env, t, admin, 'admin');
    await addMember(env, t, viewer, 'viewer');
    const list = await manage(env.server, viewer.token, 'GET', `/v1/tenants/${t}/members`);
    expect(list.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [owner.email, 'owner'],
      [admin.email, 'admin'],
      [viewer.email, 'viewer'],
    ]);
    expect((await manage(env.server, viewer.token, 'PATCH', `/v1/tenants/${t}/members/${admin.userId}`, { role: 'viewer' })).status).toBe(403);
    expect((await manage(env.server, admin.token, 'PATCH', `/v1/tenants/${t}/members/${viewer.userId}`, { role: 'owner' })).status).toBe(403);
    expect((await manage(env.server, admin.token, 'PATCH', `/v1/tenants/${t}/members/${owner.userId}`, { role: 'admin' })).status).toBe(403);
    expect((await manage(env.server, admin.token, 'DELETE', `/v1/tenants/${t}/members/${owner.userId}`)).status).toBe(403);
    expect((await manage(env.server, admin.token, 'PATCH', `/v1/tenants/${t}/members/${viewer.userId}`, { role: 'boss' })).status).toBe(400);
    const promoted = await manage(env.server, admin.token, 'PATCH', `/v1/tenants/${t}/members/${viewer.userId}`, { role: 'admin' });
    expect(promoted.body).toEqual({ user_id: viewer.userId, email: viewer.email, role: 'admin', created_at: expect.any(String) });
    expect((await manage(env.server, admin.token, 'DELETE', `/v1/tenants/${t}/members/${viewer.userId}`)).body).toEqual({ status: 'deleted' });
    expect((await manage(env.server, viewer.token, 'GET', `/v1/tenants/${t}`)).status).toBe(404);
    // Leaving: a member removes themself.
    expect((await manage(env.server, admin.token, 'DELETE', `/v1/tenants/${t}/members/${admin.userId}`)).status).toBe(200);
    expect((await manage(env.server, owner.token, 'DELETE', `/v1/tenants/${t}/members/${admin.userId}`)).status).toBe(404);
  }, 180_000);

  it('the last owner can be neither removed nor demoted (409 last_owner)', async () => {
    const t = await tenantOwnedBy(env, owner, 'Solo');
    const demote = await manage(env.server, owner.token, 'PATCH', `/v1/tenants/${t}/members/${owner.userId}`, { role: 'admin' });
    expect(demote.status).toBe(409);
    expect(demote.body.code).toBe('last_owner');
    expect((await manage(env.server, owner.token, 'DELETE', `/v1/tenants/${t}/members/${owner.userId}`)).status).toBe(409);
    expect((await manage(env.server, owner.token, 'GET', `/v1/tenants/${t}/members`)).body.members).toMatchObject([{ user_id: owner.userId, role: 'owner' }]);
  }, 180_000);

  it.skipIf(TEST_DB !== 'postgres')('two owners removing each other at once: one stays (PostgreSQL, concurrent)', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await consoleUser(env, console_, `race-a${round}`);
      const b = await consoleUser(env, console_, `race-b${round}`);
      const t = await tenantOwnedBy(env, a, `Race ${round}`);
      await addMember(env, t, b, 'owner');
      const results = await Promise.all([
        manage(env.server, a.token, 'DELETE', `/v1/tenants/${t}/members/${b.userId}`),
        manage(env.server, b.token, 'DELETE', `/v1/tenants/${t}/members/${a.userId}`),
        manage(env.server, a.token, 'PATCH', `/v1/tenants/${t}/members/${a.userId}`, { role: 'viewer' }),
        manage(env.server, b.token, 'PATCH', `/v1/tenants/${t}/members/${b.userId}`, { role: 'viewer' }),
      ]);
      // 403: a caller demoted by its own PATCH first is refused at the write (its role is read again under the lock).
      expect(results.every((r) => [200, 403, 404, 409].includes(r.status)), JSON.stringify(results.map((r) => r.body))).toBe(true);
      const members = await manage(env.server, ADMIN_TOKEN, 'GET', `/v1/tenants/${t}/members`);
      expect(members.body.members.filter((m: { role: string }) => m.role === 'owner')).toHaveLength(1);
    }
  }, 180_000);
});

describe('invitations', () => {
  it('emailed with a console link; accepted once, only by a session of the invited, verified address', async () => {
    const invitee = await consoleUser(env, console_, 'invitee');
    const impostor = await consoleUser(env, console_, 'impostor');
    const created = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/invitations`, { email: invitee.email.toUpperCase(), role: 'viewer' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ invitation_id: expect.any(String), tenant_id: tenantId, email: invitee.email.toUpperCase(), role: 'viewer', status: 'pending', expires_at: expect.any(String), created_at: expect.any(String) });
    expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).toBe(7 * 86_400_000);
    const token = await invitationToken(env, invitee.email);
    expect(JSON.stringify(created.body)).not.toContain(token);
    const wrong = await manage(env.server, impostor.token, 'POST', '/v1/tenant_invitations/accept', { token });
    expect(wrong.status).toBe(403);
    expect((await manage(env.server, ADMIN_TOKEN, 'POST', '/v1/tenant_invitations/accept', { token })).status).toBe(403);
    const accepted = await manage(env.server, invitee.token, 'POST', '/v1/tenant_invitations/accept', { token });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ tenant_id: tenantId, user_id: invitee.userId, email: invitee.email, role: 'viewer', created_at: expect.any(String) });
    expect((await manage(env.server, invitee.token, 'POST', '/v1/tenant_invitations/accept', { token })).status).toBe(400);
    const shown = await manage(env.server, owner.token, 'GET', `/v1/tenants/${tenantId}/invitations/${created.body.invitation_id}`);
    expect(shown.body.status).toBe('accepted');
    expect((await manage(env.server, owner.token, 'POST', '/v1/tenant_invitations/accept', { token: 'inv_nothing' })).status).toBe(400);
  }, 180_000);

  it('a revoked invitation is 400; a viewer can neither invite nor revoke', async () => {
    const viewer = await consoleUser(env, console_, 'inv-viewer');
    await addMember(env, tenantId, viewer, 'viewer');
    expect((await manage(env.server, viewer.token, 'POST', `/v1/tenants/${tenantId}/invitations`, { email: 'x@example.com', role: 'viewer' })).status).toBe(403);
    const invitee = await consoleUser(env, console_, 'revoked');
    const invited = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/invitations`, { email: invitee.email, role: 'admin' });
    const token = await invitationToken(env, invitee.email);
    expect((await manage(env.server, viewer.token, 'DELETE', `/v1/tenants/${tenantId}/invitations/${invited.body.invitation_id}`)).status).toBe(403);
    expect((await manage(env.server, owner.token, 'DELETE', `/v1/tenants/${tenantId}/invitations/${invited.body.invitation_id}`)).body).toEqual({ status: 'deleted' });
    expect((await manage(env.server, invitee.token, 'POST', '/v1/tenant_invitations/accept', { token })).status).toBe(400);
    const list = await manage(env.server, viewer.token, 'GET', `/v1/tenants/${tenantId}/invitations`);
    expect(list.body.invitations.find((i: { invitation_id: string }) => i.invitation_id === invited.body.invitation_id).status).toBe('revoked');
  }, 180_000);

  it('gatehouse tenant create --owner-email invites the owner; --json adds invitation_url', async () => {
    const boss = await consoleUser(env, console_, 'boss');
    const created = await cliJson<{ tenant_id: string; name: string; invitation_url: string }>(env.server, ['tenant', 'create', '--name', 'From CLI', '--owner-email', boss.email]);
    expect(created.invitation_url).toMatch(new RegExp(`^${env.server.url}/console/accept\\?token=`));
    const token = await invitationToken(env, boss.email);
    expect(created.invitation_url).toContain(token);
    const accepted = await manage(env.server, boss.token, 'POST', '/v1/tenant_invitations/accept', { token });
    expect(accepted.body).toMatchObject({ tenant_id: created.tenant_id, role: 'owner' });
  }, 180_000);
});
