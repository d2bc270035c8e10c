import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { api, cliJson, createApp, type TestApp } from '../helpers/fixtures.js';
import { asServer, asUser, orgEmail, orgOf, orgUser } from '../helpers/organizations.js';

// Issue 52 (docs/organizations.md): organisations, members, roles and invitations through the user routes
// (Publishable + Session) and the server routes (secret key); the app options; another app's and another
// organisation's ids answer 404.

let env: AuthEnv;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  env = await startAuthServer({ RATE_LIMITS: '' });
  app = await createApp(env.server, { args: ['--allowed-origin', 'https://app.example.com'] });
  other = await createApp(env.server, { tenantId: app.tenant_id });
});
afterAll(async () => {
  await env?.stop();
});

const user = (of = app) => orgUser(env.server, of);

describe('app options', () => {
  it('organizations and org_creation are printed and set by the CLI; off answers 404 on every organisation route', async () => {
    const own = await createApp(env.server, { tenantId: app.tenant_id });
    expect(own).toMatchObject({ organizations_enabled: true, org_creation: 'users' });
    const owner = await orgUser(env.server, own);
    const orgId = await orgOf(env.server, own, owner);
    const off = await cliJson<{ organizations_enabled: boolean }>(env.server, ['app', 'update', own.app_id, '--organizations', 'off', '--json']);
    expect(off.organizations_enabled).toBe(false);
    const shown = await cliJson<{ organizations_enabled: boolean; org_creation: string }>(env.server, ['app', 'show', own.app_id, '--json']);
    expect(shown).toMatchObject({ organizations_enabled: false, org_creation: 'users' });
    const u = asUser(env.server, own, owner);
    const s = asServer(env.server, own);
    for (const res of [
      await u('POST', '/v1/organizations', { name: 'X' }),
      await u('GET', '/v1/me/organizations'),
      await u('GET', `/v1/organizations/${orgId}`),
      await u('GET', `/v1/organizations/${orgId}/members`),
      await s('GET', '/v1/organizations'),
      await s('GET', '/v1/organization_roles'),
      await u('GET', '/v1/me/invitations'),
    ]) {
      expect(res.status).toBe(404);
    }
    await cliJson(env.server, ['app', 'update', own.app_id, '--organizations', 'on', '--org-creation', 'server', '--json']);
    const refused = await u('POST', '/v1/organizations', { name: 'Y' });
    expect(refused.status).toBe(403);
    const byServer = await s('POST', '/v1/organizations', { name: 'Y', owner_user_id: owner.id });
    expect(byServer.status).toBe(201);
    expect(byServer.body).toMatchObject({ name: 'Y', slug: 'y', members_count: 1 });
    expect((await u('GET', `/v1/organizations/${orgId}`)).status).toBe(200);
    // Three CLI processes: slow on a loaded machine.
  }, 180_000);
});

describe('organisations', () => {
  it('a user creates one and is its owner; slugs are unique per app (409); lists show the role', async () => {
    const owner = await user();
    const u = asUser(env.server, app, owner);
    const slug = `acme-${Date.now().toString(36)}`;
    const created = await u('POST', '/v1/organizations', { name: 'Acme Inc', slug });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Acme Inc', slug, metadata: {}, members_count: 1, role: 'owner' });
    expect(created.body.permissions).toEqual(expect.arrayContaining(['org:read', 'org:update', 'org:delete', 'org:members:manage', 'org:invitations:manage']));
    const again = await u('POST', '/v1/organizations', { name: 'Other', slug });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('slug_taken');
    // Another app may use the slug.
    const stranger = await user(other);
    expect((await asUser(env.server, other, stranger)('POST', '/v1/organizations', { name: 'Acme', slug })).status).toBe(201);
    const mine = await u('GET', '/v1/me/organizations');
    expect(mine.status).toBe(200);
    expect(mine.body.organizations).toEqual([expect.objectContaining({ organization_id: created.body.organization_id, role: 'owner' })]);
    expect(mine.body.next_cursor).toBeNull();
    const bySlug = await asServer(env.server, app)('GET', `/v1/organizations?slug=${slug}`);
    expect(bySlug.body.organizations.map((o: { organization_id: string }) => o.organization_id)).toEqual([created.body.organization_id]);
    const ofUser = await asServer(env.server, app)('GET', `/v1/users/${owner.id}/organizations`);
    expect(ofUser.body.organizations).toHaveLength(1);
    for (const bad of [{ name: '' }, { name: 'x'.repeat(101) }, { name: 'A', slug: 'Bad Slug' }, { name: 'A', slug: '-a' }, { name: 'A', nme: 1 }]) {
      expect((await u('POST', '/v1/organizations', bad)).status).toBe(400);
    }
    expect((await u('GET', '/v1/me/organizations')).body.organizations).toHaveLength(1);
  });

  it('non-members, another app and another org see 404; members without the permission 403; metadata is the server\'s', async () => {
    const owner = await user();
    const plain = await user();
    const outsider = await user();
    const orgId = await orgOf(env.server, app, owner);
    const s = asServer(env.server, app);
    expect((await s('POST', `/v1/organizations/${orgId}/members`, { user_id: plain.id, role: 'member' })).status).toBe(201);
    const m = asUser(env.server, app, plain);
    expect((await m('GET', `/v1/organizations/${orgId}`)).body).toMatchObject({ role: 'member', permissions: ['org:read'] });
    expect((await m('PATCH', `/v1/organizations/${orgId}`, { name: 'Mine' })).status).toBe(403);
    expect((await m('DELETE', `/v1/organizations/${orgId}`)).status).toBe(403);
    expect((await m('POST', `/v1/organizations/${orgId}/invitations`, { email: orgEmail(), role: 'member' })).status).toBe(403);
    expect((await asUser(env.server, app, outsider)('GET', `/v1/organizations/${orgId}`)).status).toBe(404);
    expect((await asUser(env.server, app, outsider)('GET', `/v1/organizations/${orgId}/members`)).status).toBe(404);
    expect((await asServer(env.server, other)('GET', `/v1/organizations/${orgId}`)).status).toBe(404);
    expect((await asServer(env.server, other)('POST', `/v1/organizations/${orgId}/members`, { user_id: outsider.id, role: 'member' })).status).toBe(404);
    // Another app's user cannot be added.
    const foreign = await user(other);
    expect((await s('POST', `/v1/organizations/${orgId}/members`, { user_id: foreign.id, role: 'member' })).status).toBe(404);
    // The owner's token on another organisation's id: 404.
    const second = await orgOf(env.server, app, outsider);
    expect((await asUser(env.server, app, owner)('PATCH', `/v1/organizations/${second}`, { name: 'Taken' })).status).toBe(404);
    const o = asUser(env.server, app, owner);
    expect((await o('PATCH', `/v1/organizations/${orgId}`, { metadata: { plan: 'pro' } })).status).toBe(403);
    const withMeta = await s('PATCH', `/v1/organizations/${orgId}`, { metadata: { plan: 'pro' } });
    expect(withMeta.body.metadata).toEqual({ plan: 'pro' });
    expect((await m('GET', `/v1/organizations/${orgId}`)).body.metadata).toEqual({ plan: 'pro' });
    expect((await s('PATCH', `/v1/organizations/${orgId}`, { metadata: { big: 'x'.repeat(9000) } })).body.code).toBe('metadata_too_large');
    const renamed = await o('PATCH', `/v1/organizations/${orgId}`, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', metadata: { plan: 'pro' } });
  });

  it('members: listed by members, roles changed by managers, only an owner makes an owner, the last owner stays', async () => {
    const owner = await user();
    const admin = await user();
    const plain = await user();
    const orgId = await orgOf(env.server, app, owner);
    const s = asServer(env.server, app);
    await s('POST', `/v1/organizations/${orgId}/members`, { user_id: admin.id, role: 'admin' });
    await s('POST', `/v1/organizations/${orgId}/members`, { user_id: plain.id, role: 'member' });
    expect((await s('POST', `/v1/organizations/${orgId}/members`, { user_id: plain.id, role: 'member' })).body.code).toBe('already_member');
    expect((await s('POST', `/v1/organizations/${orgId}/members`, { user_id: plain.id, role: 'nosuchrole' })).status).toBe(400);
    const listed = await asUser(env.server, app, plain)('GET', `/v1/organizations/${orgId}/members?limit=2`);
    expect(listed.body.members).toHaveLength(2);
    const rest = await asUser(env.server, app, plain)('GET', `/v1/organizations/${orgId}/members?limit=2&cursor=${listed.body.next_cursor}`);
    expect(rest.body.next_cursor).toBeNull();
    const all = [...listed.body.members, ...rest.body.members];
    expect(all.map((x: { user_id: string }) => x.user_id).sort()).toEqual([owner.id, admin.id, plain.id].sort());
    expect(all.find((x: { user_id: string }) => x.user_id === plain.id)).toMatchObject({ email: plain.email, role: 'member' });
    const a = asUser(env.server, app, admin);
    expect((await a('PATCH', `/v1/organizations/${orgId}/members/${plain.id}`, { role: 'owner' })).status).toBe(403);
    expect((await a('PATCH', `/v1/organizations/${orgId}/members/${owner.id}`, { role: 'member' })).status).toBe(403);
    expect((await a('DELETE', `/v1/organizations/${orgId}/members/${owner.id}`)).status).toBe(403);
    expect((await a('PATCH', `/v1/organizations/${orgId}/members/${plain.id}`, { role: 'admin' })).body.role).toBe('admin');
    const o = asUser(env.server, app, owner);
    for (const res of [
      await o('DELETE', `/v1/organizations/${orgId}/members/${owner.id}`),
      await o('PATCH', `/v1/organizations/${orgId}/members/${owner.id}`, { role: 'admin' }),
      await s('DELETE', `/v1/organizations/${orgId}/members/${owner.id}`),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('last_owner');
    }
    expect((await o('PATCH', `/v1/organizations/${orgId}/members/${admin.id}`, { role: 'owner' })).body.role).toBe('owner');
    expect((await o('DELETE', `/v1/organizations/${orgId}/members/${owner.id}`)).status).toBe(200);
    expect((await o('GET', `/v1/organizations/${orgId}`)).status).toBe(404);
    // Anyone may leave.
    expect((await asUser(env.server, app, plain)('DELETE', `/v1/organizations/${orgId}/members/${plain.id}`)).status).toBe(200);
    expect((await s('GET', `/v1/organizations/${orgId}`)).body.members_count).toBe(1);
  });

  it('custom roles: org:read plus their permissions; a role in use cannot be deleted', async () => {
    const s = asServer(env.server, app);
    const key = `billing_${Date.now().toString(36)}`;
    const created = await s('POST', '/v1/organization_roles', { key, name: 'Billing', permissions: ['org:invitations:manage', 'invoices:read'] });
    expect(created.status).toBe(201);
    expect(created.body.permissions).toEqual(['org:read', 'org:invitations:manage', 'invoices:read']);
    expect((await s('POST', '/v1/organization_roles', { key, name: 'Again', permissions: [] })).status).toBe(409);
    expect((await s('POST', '/v1/organization_roles', { key: 'admin', name: 'x', permissions: [] })).status).toBe(409);
    expect((await s('POST', '/v1/organization_roles', { key: 'Bad Key', name: 'x', permissions: [] })).status).toBe(400);
    expect((await asServer(env.server, other)('PATCH', `/v1/organization_roles/${key}`, { name: 'x' })).status).toBe(404);
    const owner = await user();
    const billing = await user();
    const orgId = await orgOf(env.server, app, owner);
    await s('POST', `/v1/organizations/${orgId}/members`, { user_id: billing.id, role: key });
    const b = asUser(env.server, app, billing);
    expect((await b('GET', `/v1/organizations/${orgId}`)).body).toMatchObject({ role: key, permissions: ['org:read', 'org:invitations:manage', 'invoices:read'] });
    expect((await b('POST', `/v1/organizations/${orgId}/invitations`, { email: orgEmail(), role: 'member' })).status).toBe(201);
    expect((await b('PATCH', `/v1/organizations/${orgId}`, { name: 'No' })).status).toBe(403);
    expect((await s('DELETE', `/v1/organization_roles/${key}`)).body.code).toBe('role_in_use');
    await s('PATCH', `/v1/organization_roles/${key}`, { permissions: ['org:update'] });
    expect((await b('PATCH', `/v1/organizations/${orgId}`, { name: 'Yes' })).status).toBe(200);
    expect((await s('GET', '/v1/organization_roles')).body.roles.map((r: { key: string }) => r.key)).toContain(key);
    // Each change of a role writes its event; the refused ones (duplicate, built-in, in use) write none.
    await s('PATCH', `/v1/organizations/${orgId}/members/${billing.id}`, { role: 'member' });
    expect((await s('DELETE', `/v1/organization_roles/${key}`)).status).toBe(200);
    const events = (await s('GET', '/v1/events?type=organization.role.*&limit=200')).body.events as { type: string; actor: { type: string }; user_id: string | null; data: Record<string, unknown> }[];
    const ofKey = events.filter((e) => e.data.key === key).reverse();
    expect(ofKey.map((e) => [e.type, e.data])).toEqual([
      ['organization.role.created', { key, permissions: ['org:read', 'org:invitations:manage', 'invoices:read'] }],
      ['organization.role.updated', { key, changed: ['permissions'], permissions: ['org:read', 'org:update'] }],
      ['organization.role.deleted', { key }],
    ]);
    expect(ofKey.every((e) => e.actor.type === 'secret_key' && e.user_id === null)).toBe(true);
  });
});

describe('invitations', () => {
  it('are emailed with a link to the app carrying the token; the invited verified address accepts once', async () => {
    const owner = await user();
    const orgId = await orgOf(env.server, app, owner, 'Invite Co');
    const o = asUser(env.server, app, owner);
    const email = orgEmail('invitee');
    const sent = await o('POST', `/v1/organizations/${orgId}/invitations`, { email, role: 'admin' });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ organization_id: orgId, email, role: 'admin', status: 'pending' });
    expect(new Date(sent.body.expires_at).getTime() - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const mail = await env.sink.waitFor(email);
    expect(mail.subject).toContain('Invite Co');
    const link = new URL(/https:\/\/\S+invitation_token=\S+/.exec(mail.text)![0]);
    expect(link.origin).toBe('https://app.example.com');
    const token = link.searchParams.get('invitation_token')!;
    expect(token.length).toBeGreaterThan(30);
    expect(JSON.stringify(sent.body)).not.toContain(token);
    expect((await o('POST', `/v1/organizations/${orgId}/invitations`, { email, role: 'member', redirect_url: 'https://evil.example.net/x' })).body.code).toBe('invalid_redirect');

    // Another address, and the right address unverified: 403.
    const wrong = await user();
    expect((await asUser(env.server, app, wrong)('POST', '/v1/invitations/accept', { token })).body.code).toBe('invitation_email_mismatch');
    const unverified = await orgUser(env.server, app, orgEmail('unverified'), false);
    expect((await asUser(env.server, app, unverified)('GET', '/v1/me/invitations')).body.invitations).toEqual([]);
    const invitee = await orgUser(env.server, app, email);
    const i = asUser(env.server, app, invitee);
    const pending = await i('GET', '/v1/me/invitations');
    expect(pending.body.invitations).toEqual([expect.objectContaining({ invitation_id: sent.body.invitation_id, organization_name: 'Invite Co' })]);
    // Another app's session cannot accept it.
    const foreign = await orgUser(env.server, other, orgEmail());
    expect((await asUser(env.server, other, foreign)('POST', '/v1/invitations/accept', { invitation_id: sent.body.invitation_id })).status).toBe(404);
    const accepted = await i('POST', '/v1/invitations/accept', { token });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ organization_id: orgId, user_id: invitee.id, role: 'admin', email });
    const again = await i('POST', '/v1/invitations/accept', { token });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('invalid_invitation');
    expect((await o('GET', `/v1/organizations/${orgId}/invitations/${sent.body.invitation_id}`)).body.status).toBe('accepted');
    // An admin cannot invite an owner.
    expect((await i('POST', `/v1/organizations/${orgId}/invitations`, { email: orgEmail(), role: 'owner' })).status).toBe(403);
  });

  it('a revoked invitation is refused (400); another organisation\'s invitation id is 404', async () => {
    const owner = await user();
    const orgId = await orgOf(env.server, app, owner);
    const otherOrg = await orgOf(env.server, app, owner);
    const o = asUser(env.server, app, owner);
    const email = orgEmail();
    const sent = await o('POST', `/v1/organizations/${orgId}/invitations`, { email, role: 'member' });
    expect((await o('GET', `/v1/organizations/${otherOrg}/invitations/${sent.body.invitation_id}`)).status).toBe(404);
    expect((await o('DELETE', `/v1/organizations/${otherOrg}/invitations/${sent.body.invitation_id}`)).status).toBe(404);
    expect((await o('DELETE', `/v1/organizations/${orgId}/invitations/${sent.body.invitation_id}`)).status).toBe(200);
    const listed = await o('GET', `/v1/organizations/${orgId}/invitations?status=revoked`);
    expect(listed.body.invitations).toEqual([expect.objectContaining({ invitation_id: sent.body.invitation_id, status: 'revoked' })]);
    const invitee = await orgUser(env.server, app, email);
    const refused = await asUser(env.server, app, invitee)('POST', '/v1/invitations/accept', { invitation_id: sent.body.invitation_id });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('invalid_invitation');
    expect((await asUser(env.server, app, invitee)('POST', '/v1/invitations/accept', { token: 'orginv_made-up' })).body.code).toBe('invalid_invitation');
    expect((await asUser(env.server, app, invitee)('POST', '/v1/invitations/accept', {})).status).toBe(400);
  });

  it('20 an hour per organisation answer 429 with Retry-After', async () => {
    const owner = await user();
    const orgId = await orgOf(env.server, app, owner);
    const o = asUser(env.server, app, owner);
    for (let n = 0; n < 20; n++) expect((await o('POST', `/v1/organizations/${orgId}/invitations`, { email: orgEmail(), role: 'member' })).status).toBe(201);
    const limited = await o('POST', `/v1/organizations/${orgId}/invitations`, { email: orgEmail(), role: 'member' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another organisation's window is its own.
    const second = await orgOf(env.server, app, owner);
    expect((await o('POST', `/v1/organizations/${second}/invitations`, { email: orgEmail(), role: 'member' })).status).toBe(201);
  });
});

describe('deletion', () => {
  it('an organisation deleted by its owner is gone at once for members and the server', async () => {
    const owner = await user();
    const plain = await user();
    const orgId = await orgOf(env.server, app, owner);
    await asServer(env.server, app)('POST', `/v1/organizations/${orgId}/members`, { user_id: plain.id, role: 'member' });
    expect((await asUser(env.server, app, owner)('DELETE', `/v1/organizations/${orgId}`)).body).toEqual({ status: 'deleted' });
    expect((await asUser(env.server, app, plain)('GET', `/v1/organizations/${orgId}`)).status).toBe(404);
    expect((await asUser(env.server, app, plain)('GET', '/v1/me/organizations')).body.organizations).toEqual([]);
    expect((await api(env.server, 'GET', `/v1/organizations/${orgId}`, { bearer: app.secret_key })).status).toBe(404);
  });

  it("a user's deletion removes their memberships and invitations; the export lists the organisations", async () => {
    const owner = await user();
    const leaving = await user();
    const orgId = await orgOf(env.server, app, owner, 'Exported Co');
    const s = asServer(env.server, app);
    await s('POST', `/v1/organizations/${orgId}/members`, { user_id: leaving.id, role: 'admin' });
    await asUser(env.server, app, owner)('POST', `/v1/organizations/${orgId}/invitations`, { email: leaving.email, role: 'member' });
    const exported = await s('GET', `/v1/users/${leaving.id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body.organizations).toEqual([expect.objectContaining({ organization_id: orgId, name: 'Exported Co', role: 'admin' })]);
    expect((await s('DELETE', `/v1/users/${leaving.id}`)).status).toBe(200);
    expect((await s('GET', `/v1/organizations/${orgId}`)).body.members_count).toBe(1);
    const members = (await s('GET', `/v1/organizations/${orgId}/members`)).body.members;
    expect(members.map((m: { user_id: string }) => m.user_id)).toEqual([owner.id]);
    expect((await s('GET', `/v1/organizations/${orgId}/invitations`)).body.invitations).toEqual([]);
  });

});

describe('events', () => {
  it('every change writes its event in the same transaction; a refused change writes none', async () => {
    const owner = await user();
    const plain = await user();
    const u = asUser(env.server, app, owner);
    const s = asServer(env.server, app);
    const orgId = await orgOf(env.server, app, owner);
    await s('POST', `/v1/organizations/${orgId}/members`, { user_id: plain.id, role: 'member' });
    await u('PATCH', `/v1/organizations/${orgId}/members/${plain.id}`, { role: 'admin' });
    await u('PATCH', `/v1/organizations/${orgId}`, { name: 'Evented' });
    expect((await u('DELETE', `/v1/organizations/${orgId}/members/${owner.id}`)).status).toBe(409);
    const email = orgEmail('evented');
    const sent = await u('POST', `/v1/organizations/${orgId}/invitations`, { email, role: 'member' });
    await u('DELETE', `/v1/organizations/${orgId}/invitations/${sent.body.invitation_id}`);
    const second = await u('POST', `/v1/organizations/${orgId}/invitations`, { email, role: 'member' });
    const invitee = await orgUser(env.server, app, email);
    await asUser(env.server, app, invitee)('POST', '/v1/invitations/accept', { invitation_id: second.body.invitation_id });
    await u('DELETE', `/v1/organizations/${orgId}/members/${plain.id}`);
    await u('DELETE', `/v1/organizations/${orgId}`);
    const events = (await s('GET', '/v1/events?type=organization.*&limit=200')).body.events as { type: string; actor: { type: string; id: string | null }; user_id: string | null; data: Record<string, unknown> }[];
    const mine = events.filter((e) => e.data.organization_id === orgId).reverse();
    // A creation (the organisation and its first owner) and an accept (the invitation and the membership) each
    // write two events in one transaction, at one instant: their order between them is not promised.
    const types = mine.map((e) => e.type);
    const accepted = types.splice(8, 2).sort();
    expect(accepted).toEqual(['organization.invitation.accepted', 'organization.membership.created']);
    const created = types.splice(0, 2).sort();
    expect(created).toEqual(['organization.created', 'organization.membership.created']);
    expect(types).toEqual([
      'organization.membership.created',
      'organization.membership.updated',
      'organization.updated',
      'organization.invitation.created',
      'organization.invitation.revoked',
      'organization.invitation.created',
      'organization.membership.deleted',
      'organization.deleted',
    ]);
    expect(mine.find((e) => e.type === 'organization.created')!.actor).toEqual({ type: 'user', id: owner.id });
    expect(mine[2]).toMatchObject({ actor: { type: 'secret_key', id: null }, user_id: plain.id, data: { role: 'member' } });
    expect(mine[3]!.data).toMatchObject({ role: 'admin', previous_role: 'member' });
    expect(mine[4]!.data.changed).toEqual(['name']);
    expect(mine[8]).toMatchObject({ user_id: invitee.id, actor: { type: 'user', id: invitee.id } });
    expect(JSON.stringify(mine)).not.toContain(email);
  });
});
