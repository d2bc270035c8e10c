import { createClient, GatehouseError, type GatehouseClient } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, sharedAuthServer, uniqueEmail, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { claimsOf } from '../helpers/mfa.js';

// Issue 52: @gatehouse/client's `organizations` against a real Gatehouse (mail to an SMTP sink): create, list
// mine, members, invitations (create, list, revoke, mine, accept by the emailed token), setActive with the
// refreshed token's claims, and `organizations.from(table)` reading and writing the active organisation's rows.

let env: AuthEnv;
let app: TestApp;
const clients: GatehouseClient[] = [];

interface Note extends Record<string, unknown> {
  title: string;
}

async function signedIn(name: string): Promise<{ gatehouse: GatehouseClient; email: string; userId: string }> {
  const gatehouse = createClient({ url: env.server.url, publishableKey: app.publishable_key });
  clients.push(gatehouse);
  const email = uniqueEmail(name);
  await gatehouse.auth.signUp({ email, password: 'correct horse battery' });
  const session = await gatehouse.auth.verifyOtp({ email, code: await codeFor(env.sink, email) });
  return { gatehouse, email, userId: session.user_id };
}

beforeAll(async () => {
  // The worker's shared server of the default environment (test/suite.mjs SHARED): this file's apps and users are its own.
  env = await sharedAuthServer();
  app = await createApp(env.server, { name: 'Teams', args: ['--allowed-origin', 'https://team.example.test'] });
  const table = await api(env.server, 'POST', '/v1/tables', { bearer: app.secret_key, body: { name: 'notes', columns: [{ name: 'title', type: 'text', required: true }] } });
  expect(table.status).toBe(201);
});

afterAll(async () => {
  for (const made of clients) made.close();
  await env?.stop();
});

describe('52 @gatehouse/client: organizations', () => {
  it('52 client sdk: create, list mine, invite by email, accept with the emailed token, members; a revoked invitation cannot be accepted', async () => {
    const ada = await signedIn('ada');
    const bob = await signedIn('bob');
    const carol = await signedIn('carol');
    const org = await ada.gatehouse.organizations.create({ name: 'Acme' });
    expect(org).toMatchObject({ name: 'Acme', slug: expect.any(String), members_count: 1 });
    expect(await ada.gatehouse.organizations.list()).toEqual([expect.objectContaining({ organization_id: org.organization_id, role: 'owner' })]);
    expect(await bob.gatehouse.organizations.list()).toEqual([]);

    const invited = await ada.gatehouse.organizations.invitations.create(org.organization_id, { email: bob.email, role: 'member', redirectTo: 'https://team.example.test/join' });
    expect(invited).toMatchObject({ email: bob.email, role: 'member', status: 'pending' });
    expect((await bob.gatehouse.organizations.invitations.mine()).map((i) => i.invitation_id)).toEqual([invited.invitation_id]);
    const mail = await env.sink.waitFor(bob.email, { count: 2 });
    const token = /invitation_token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
    expect(token).toBeDefined();
    const membership = await bob.gatehouse.organizations.accept({ token: token! });
    expect(membership).toMatchObject({ organization_id: org.organization_id, user_id: bob.userId, role: 'member' });

    const page = await ada.gatehouse.organizations.members(org.organization_id);
    expect(page.members.map((m) => [m.user_id, m.role]).sort()).toEqual([[ada.userId, 'owner'], [bob.userId, 'member']].sort());

    const forCarol = await ada.gatehouse.organizations.invitations.create(org.organization_id, { email: carol.email, role: 'admin' });
    await ada.gatehouse.organizations.invitations.revoke(org.organization_id, forCarol.invitation_id);
    const listed = await ada.gatehouse.organizations.invitations.list(org.organization_id);
    expect(listed.invitations.find((i) => i.invitation_id === forCarol.invitation_id)?.status).toBe('revoked');
    const refused = await carol.gatehouse.organizations.accept({ invitationId: forCarol.invitation_id }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GatehouseError);
    expect((refused as GatehouseError).status).toBe(400);
    // A member may not manage invitations; a non-member does not see the organisation.
    await expect(bob.gatehouse.organizations.invitations.create(org.organization_id, { email: carol.email, role: 'member' })).rejects.toMatchObject({ status: 403 });
    await expect(carol.gatehouse.organizations.members(org.organization_id)).rejects.toMatchObject({ status: 404 });
  });

  it("52 client sdk: setActive puts the organisation in the refreshed token and /v1/me; organizations.from reads and writes its rows, from() the user's own", async () => {
    const ada = await signedIn('ada-rows');
    const bob = await signedIn('bob-rows');
    const eve = await signedIn('eve-rows');
    const org = await ada.gatehouse.organizations.create({ name: 'Shared notes' });
    const invited = await ada.gatehouse.organizations.invitations.create(org.organization_id, { email: bob.email, role: 'member' });
    await bob.gatehouse.organizations.accept({ invitationId: invited.invitation_id });

    await expect(ada.gatehouse.organizations.from<Note>('notes').insert({ title: 'too early' })).rejects.toThrow(/no active organisation/);
    await ada.gatehouse.from<Note>('notes').insert({ title: "Ada's own" });
    const session = await ada.gatehouse.organizations.setActive(org.organization_id);
    expect(claimsOf(session!.access_token!)).toMatchObject({ org_id: org.organization_id, org_slug: org.slug, org_role: 'owner', org_permissions: expect.arrayContaining(['org:read', 'org:delete']) });
    expect(claimsOf((await ada.gatehouse.auth.getToken())!).org_id).toBe(org.organization_id);
    expect(await ada.gatehouse.organizations.getActive()).toMatchObject({ organization_id: org.organization_id, slug: org.slug, role: 'owner' });

    const shared = await ada.gatehouse.organizations.from<Note>('notes').insert({ title: 'For the team' });
    expect(shared).toMatchObject({ organization_id: org.organization_id, user_id: null, created_by: ada.userId, data: { title: 'For the team' } });
    // With the organisation active, queries see its rows only.
    expect((await ada.gatehouse.from<Note>('notes').select()).rows.map((r) => r.data.title)).toEqual(['For the team']);

    // Bob sees it once the organisation is his active one, and writes to it too.
    expect((await bob.gatehouse.from<Note>('notes').select()).rows).toEqual([]);
    await bob.gatehouse.organizations.setActive(org.organization_id);
    expect(await bob.gatehouse.organizations.getActive()).toMatchObject({ role: 'member', permissions: ['org:read'] });
    await bob.gatehouse.organizations.from<Note>('notes').insert({ title: 'From Bob' });
    const rows = (await bob.gatehouse.organizations.from<Note>('notes').select().order('created_at')).rows;
    expect(rows.map((r) => [r.data.title, r.created_by])).toEqual([['For the team', ada.userId], ['From Bob', bob.userId]]);

    // A non-member cannot make it active (404) and never sees its rows.
    await expect(eve.gatehouse.organizations.setActive(org.organization_id)).rejects.toMatchObject({ status: 404 });
    await expect(eve.gatehouse.from<Note>('notes').get(shared.row_id)).rejects.toMatchObject({ status: 404 });

    // Back to no organisation: the token has no org claims, and the user's own rows come back.
    const cleared = await ada.gatehouse.organizations.setActive(null);
    expect(claimsOf(cleared!.access_token!).org_id).toBeUndefined();
    expect(await ada.gatehouse.organizations.getActive()).toBeNull();
    expect((await ada.gatehouse.from<Note>('notes').select()).rows.map((r) => r.data.title)).toEqual(["Ada's own"]);
  });
});
