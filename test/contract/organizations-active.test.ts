import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { asServer, asUser, claimsOf, orgOf, orgUser } from '../helpers/organizations.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Issue 52 (docs/organizations.md): the active organisation of a session. POST /v1/sessions/active_organization
// answers a token with org_* claims; refreshes keep them; GET /v1/me shows `organization`; a removal or the
// organisation's deletion clears it in /v1/me at once (on another node too) and in the next refresh's token.

// Nodes behind one load balancer share PUBLIC_BASE_URL (the tokens' issuer) and MASTER_KEY.
const ISSUER = 'https://auth.example.test';
let server: TestServer;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  server = await startServer({ RATE_LIMITS: '', PUBLIC_BASE_URL: ISSUER });
  app = await createApp(server, { args: ['--allowed-origin', 'https://app.example.com'] });
  other = await createApp(server, { tenantId: app.tenant_id });
});
afterAll(async () => {
  await server?.stop();
});

const setActive = (of: TestApp, token: string, organization_id: string | null) =>
  api(server, 'POST', '/v1/sessions/active_organization', { publishableKey: of.publishable_key, bearer: token, body: { organization_id } });
const me = (token: string, on = server) => api(on, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token });
const refresh = (refresh_token: string) => api(server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body: { refresh_token } });

describe('the active organisation', () => {
  it('is set by a member: the token carries org claims, /v1/me shows it, refreshes keep it, null clears it', async () => {
    const owner = await orgUser(server, app);
    const orgId = await orgOf(server, app, owner, 'Active Co');
    expect((await me(owner.token)).body.organization).toBeNull();
    const set = await setActive(app, owner.token, orgId);
    expect(set.status).toBe(200);
    expect(new Date(set.body.expires_at).getTime()).toBeGreaterThan(Date.now());
    const claims = claimsOf(set.body.access_token);
    expect(claims).toMatchObject({ sub: owner.id, org_id: orgId, org_slug: 'active-co', org_role: 'owner' });
    expect(claims.org_permissions).toEqual(expect.arrayContaining(['org:read', 'org:delete']));
    const shown = await me(set.body.access_token);
    expect(shown.body.organization).toMatchObject({ organization_id: orgId, slug: 'active-co', role: 'owner' });
    // The older token of the same session reads the session's state too.
    expect((await me(owner.token)).body.organization).toMatchObject({ organization_id: orgId });
    const refreshed = await refresh(owner.refreshToken);
    expect(refreshed.status).toBe(200);
    expect(claimsOf(refreshed.body.access_token)).toMatchObject({ org_id: orgId, org_role: 'owner' });
    const cleared = await setActive(app, refreshed.body.access_token, null);
    expect(cleared.status).toBe(200);
    expect(claimsOf(cleared.body.access_token)).not.toHaveProperty('org_id');
    expect((await me(cleared.body.access_token)).body.organization).toBeNull();
    expect(claimsOf((await refresh(refreshed.body.refresh_token)).body.access_token)).not.toHaveProperty('org_id');
  });

  it("a non-member, another app's and an unknown organisation: 404, nothing changes", async () => {
    const owner = await orgUser(server, app);
    const outsider = await orgUser(server, app);
    const orgId = await orgOf(server, app, owner);
    expect((await setActive(app, outsider.token, orgId)).status).toBe(404);
    expect((await setActive(app, outsider.token, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const foreign = await orgUser(server, other);
    expect((await setActive(other, foreign.token, orgId)).status).toBe(404);
    expect((await me(outsider.token)).body.organization).toBeNull();
    expect((await setActive(app, outsider.token, 'not-a-uuid' as string)).status).toBe(400);
  });

  it('a cookie session gets its __session renewed', async () => {
    const owner = await orgUser(server, app);
    const orgId = await orgOf(server, app, owner);
    const res = await fetch(`${server.url}/v1/sessions/active_organization`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-publishable-key': app.publishable_key, cookie: `__session=${owner.token}`, origin: 'https://app.example.com' },
      body: JSON.stringify({ organization_id: orgId }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string };
    expect(res.headers.getSetCookie().some((c) => c.startsWith(`__session=${body.access_token}`))).toBe(true);
  });

  it('removal clears it: /v1/me at once, the next refresh has no org claims; deletion too', async () => {
    const owner = await orgUser(server, app);
    const plain = await orgUser(server, app);
    const orgId = await orgOf(server, app, owner);
    await asServer(server, app)('POST', `/v1/organizations/${orgId}/members`, { user_id: plain.id, role: 'member' });
    const set = await setActive(app, plain.token, orgId);
    expect(claimsOf(set.body.access_token)).toMatchObject({ org_id: orgId, org_role: 'member', org_permissions: ['org:read'] });
    expect((await asUser(server, app, owner)('DELETE', `/v1/organizations/${orgId}/members/${plain.id}`)).status).toBe(200);
    expect((await me(set.body.access_token)).body.organization).toBeNull();
    expect(claimsOf((await refresh(plain.refreshToken)).body.access_token)).not.toHaveProperty('org_id');

    const set2 = await setActive(app, owner.token, orgId);
    expect((await me(set2.body.access_token)).body.organization).not.toBeNull();
    expect((await asUser(server, app, owner)('DELETE', `/v1/organizations/${orgId}`)).status).toBe(200);
    expect((await me(set2.body.access_token)).body.organization).toBeNull();
    expect(claimsOf((await refresh(owner.refreshToken)).body.access_token)).not.toHaveProperty('org_id');
  });
});

describe.skipIf(TEST_DB !== 'postgres')('on a second node', () => {
  let second: TestServer;
  beforeAll(async () => {
    second = await startServer({ RATE_LIMITS: '', DATABASE_URL: server.databaseUrl, MASTER_KEY: server.env.MASTER_KEY, PUBLIC_BASE_URL: ISSUER });
  });
  afterAll(async () => {
    await second?.stop();
  });

  it('a member removed through one node is refused the organisation at once by the other', async () => {
    const owner = await orgUser(server, app);
    const plain = await orgUser(server, app);
    const orgId = await orgOf(server, app, owner);
    await asServer(server, app)('POST', `/v1/organizations/${orgId}/members`, { user_id: plain.id, role: 'member' });
    const set = await setActive(app, plain.token, orgId);
    const onSecond = (method: string, path: string) => api(second, method, path, { publishableKey: app.publishable_key, bearer: set.body.access_token });
    expect((await me(set.body.access_token, second)).body.organization).toMatchObject({ organization_id: orgId });
    expect((await onSecond('GET', `/v1/organizations/${orgId}`)).status).toBe(200);
    expect((await asUser(server, app, owner)('DELETE', `/v1/organizations/${orgId}/members/${plain.id}`)).status).toBe(200);
    expect((await me(set.body.access_token, second)).body.organization).toBeNull();
    expect((await onSecond('GET', `/v1/organizations/${orgId}`)).status).toBe(404);
    expect((await onSecond('GET', `/v1/organizations/${orgId}/members`)).status).toBe(404);
  });
});
