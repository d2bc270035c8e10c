import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type JsonResponse, type TestApp } from '../helpers/fixtures.js';
import { asServer, asUser, orgEmail, orgOf, orgUser } from '../helpers/organizations.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Issue 52 (docs/organizations.md): the rules of organisations under real concurrent requests. Each limit
// is a condition of the write that changes what it counts, so on PostgreSQL (concurrent transactions) as on
// SQLite the outcome is exact: one membership from 20 accepts of one invitation, one owner left from 20
// removals of the last two, 100 organisations from 105 creations, ORG_MAX_MEMBERS members from more adds;
// and a permission is read under the organisation's lock in the write's transaction, so two managers
// demoting or removing each other at once never both succeed.

let server: TestServer;
let app: TestApp;

beforeAll(async () => {
  // The invitation window (20 an hour by default) is widened here so the pending cap is what refuses.
  server = await startServer({ RATE_LIMITS: 'org_invitation_org=1000/3600', ORG_MAX_MEMBERS: '5' });
  app = await createApp(server, { args: ['--allowed-origin', 'https://app.example.com'] });
});
afterAll(async () => {
  await server?.stop();
});

/**
 * Runs every request at once; those answered 503 (a loaded machine: the pool's wait ran out while the others
 * held the row's lock, answered with Retry-After) are sent again, all at once, until none is. The outcome
 * then counts every request once.
 */
async function settled(requests: (() => Promise<JsonResponse>)[]): Promise<JsonResponse[]> {
  const results = await Promise.all(requests.map((send) => send()));
  for (let round = 0; round < 10; round++) {
    const again = results.map((r, i) => (r.status === 503 ? i : -1)).filter((i) => i >= 0);
    if (again.length === 0) break;
    const retried = await Promise.all(again.map((i) => requests[i]!()));
    again.forEach((i, n) => (results[i] = retried[n]!));
  }
  return results;
}

describe('races', () => {
  it('20 parallel accepts of one invitation: one membership', async () => {
    const owner = await orgUser(server, app);
    const orgId = await orgOf(server, app, owner);
    const email = orgEmail('race');
    const sent = await asUser(server, app, owner)('POST', `/v1/organizations/${orgId}/invitations`, { email, role: 'member' });
    const invitee = await orgUser(server, app, email);
    const results = await settled(Array.from({ length: 20 }, () => () => asUser(server, app, invitee)('POST', '/v1/invitations/accept', { invitation_id: sent.body.invitation_id })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(19);
    const org = await asServer(server, app)('GET', `/v1/organizations/${orgId}`);
    expect(org.body.members_count).toBe(2);
    expect((await asServer(server, app)('GET', `/v1/organizations/${orgId}/members`)).body.members).toHaveLength(2);
  });

  it('20 parallel removals of the last two owners: one owner left', async () => {
    const a = await orgUser(server, app);
    const b = await orgUser(server, app);
    const orgId = await orgOf(server, app, a);
    const s = asServer(server, app);
    expect((await s('POST', `/v1/organizations/${orgId}/members`, { user_id: b.id, role: 'owner' })).status).toBe(201);
    const results = await settled(Array.from({ length: 20 }, (_, i) => () => s('DELETE', `/v1/organizations/${orgId}/members/${i % 2 ? a.id : b.id}`)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.every((r) => r.status === 200 || r.status === 409 || r.status === 404)).toBe(true);
    const left = (await s('GET', `/v1/organizations/${orgId}/members`)).body.members;
    expect(left).toHaveLength(1);
    expect(left[0].role).toBe('owner');
    expect((await s('GET', `/v1/organizations/${orgId}`)).body.members_count).toBe(1);
    // The one left is the last owner: refused.
    expect((await s('DELETE', `/v1/organizations/${orgId}/members/${left[0].user_id}`)).body.code).toBe('last_owner');
  });

  it('a permission is held to the write: two owners demoting each other at once, one wins and the other is refused', async () => {
    // Serially, the first demotion leaves the other without org:members:manage. Read before the write's
    // transaction, both checks would pass and both would be demoted; read under the organisation's lock, never.
    const s = asServer(server, app);
    for (let round = 0; round < 6; round++) {
      const [a, b, c] = [await orgUser(server, app), await orgUser(server, app), await orgUser(server, app)];
      const orgId = await orgOf(server, app, a);
      for (const u of [b, c]) expect((await s('POST', `/v1/organizations/${orgId}/members`, { user_id: u.id, role: 'owner' })).status).toBe(201);
      const results = await settled([
        () => asUser(server, app, a)('PATCH', `/v1/organizations/${orgId}/members/${b.id}`, { role: 'member' }),
        () => asUser(server, app, b)('PATCH', `/v1/organizations/${orgId}/members/${a.id}`, { role: 'member' }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 403]);
      const roles = (await s('GET', `/v1/organizations/${orgId}/members`)).body.members.map((m: { user_id: string; role: string }) => (m.user_id === c.id ? 'c' : m.role)).sort();
      expect(roles).toEqual(['c', 'member', 'owner']);
      const changes = (await s('GET', '/v1/events?type=organization.membership.updated&limit=50')).body.events.filter((e: { data: { organization_id: string } }) => e.data.organization_id === orgId);
      expect(changes).toHaveLength(1);
    }
  });

  it('two admins removing each other at once: one is left, the other was refused (404: no longer a member)', async () => {
    const s = asServer(server, app);
    for (let round = 0; round < 6; round++) {
      const owner = await orgUser(server, app);
      const [x, y] = [await orgUser(server, app), await orgUser(server, app)];
      const orgId = await orgOf(server, app, owner);
      for (const u of [x, y]) expect((await s('POST', `/v1/organizations/${orgId}/members`, { user_id: u.id, role: 'admin' })).status).toBe(201);
      const results = await settled([
        () => asUser(server, app, x)('DELETE', `/v1/organizations/${orgId}/members/${y.id}`),
        () => asUser(server, app, y)('DELETE', `/v1/organizations/${orgId}/members/${x.id}`),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 404]);
      expect((await s('GET', `/v1/organizations/${orgId}`)).body.members_count).toBe(2);
    }
  });

  it('the cap of 100 organisations per user: 105 parallel creations make exactly 100', async () => {
    const user = await orgUser(server, app);
    const u = asUser(server, app, user);
    const results = await settled(Array.from({ length: 105 }, (_, i) => () => u('POST', '/v1/organizations', { name: `Cap ${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(100);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(5);
    expect(refused.every((r) => r.status === 409 && r.body.code === 'organization_limit_reached')).toBe(true);
    let count = 0;
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: { body: { organizations: unknown[]; next_cursor: string | null } } = await u('GET', `/v1/me/organizations?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      count += page.body.organizations.length;
      cursor = page.body.next_cursor;
    }
    expect(count).toBe(100);
  });

  it('ORG_MAX_MEMBERS: parallel additions stop exactly at the cap', async () => {
    const owner = await orgUser(server, app);
    const orgId = await orgOf(server, app, owner);
    const users = await Promise.all(Array.from({ length: 10 }, () => orgUser(server, app)));
    const s = asServer(server, app);
    const results = await settled(users.map((u) => () => s('POST', `/v1/organizations/${orgId}/members`, { user_id: u.id, role: 'member' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(4);
    expect(results.filter((r) => r.status === 409 && r.body.code === 'member_limit_reached')).toHaveLength(6);
    expect((await s('GET', `/v1/organizations/${orgId}`)).body.members_count).toBe(5);
  });

  it('100 pending invitations per organisation: the next is 429 with Retry-After', async () => {
    const owner = await orgUser(server, app);
    const orgId = await orgOf(server, app, owner);
    const send = () => api(server, 'POST', `/v1/organizations/${orgId}/invitations`, { bearer: app.secret_key, body: { email: orgEmail('pending'), role: 'member' } });
    const results = await settled(Array.from({ length: 105 }, () => send));
    expect(results.filter((r) => r.status === 201)).toHaveLength(100);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(5);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
