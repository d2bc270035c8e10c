import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cliJson, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Issue 49: an app's custom claims (`token_claims`, docs/users.md): a template of user fields applied to
// every access token the app's sessions get, at sign-in and at each refresh; names the service uses refused
// when set; private and unsafe metadata never readable; a result past 4 KiB left out, the token still issued.

let server: TestServer;
let app: TestApp;
let other: TestApp;

const TEMPLATE = {
  role: '{{user.public_metadata.role}}',
  tier: '{{user.public_metadata.tier}}',
  verified: '{{user.email_verified}}',
  label: '{{ user.public_metadata.role }} of {{user.email}}',
  missing: '{{user.public_metadata.nothing.here}}',
};

beforeAll(async () => {
  server = await startServer({ RATE_LIMITS: '' });
  app = await createApp(server, { args: ['--token-claims', JSON.stringify(TEMPLATE)] });
  other = await createApp(server, { tenantId: app.tenant_id });
});
afterAll(async () => {
  await server?.stop();
});

let counter = 0;
const uniqueEmail = () => `claims.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`;
const payload = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const refresh = (of: TestApp, refresh_token: string) => api(server, 'POST', '/v1/tokens/session', { publishableKey: of.publishable_key, body: { refresh_token } });

/** A user of `of` with this metadata, signed in by a sign-in token. */
async function signedIn(of: TestApp, metadata: { public_metadata?: object; private_metadata?: object; unsafe_metadata?: object }) {
  const email = uniqueEmail();
  const created = await api(server, 'POST', '/v1/users', { bearer: of.secret_key, body: { email } });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect((await api(server, 'PATCH', `/v1/users/${id}`, { bearer: of.secret_key, body: metadata })).status).toBe(200);
  const session = await api(server, 'POST', '/v1/sign_in_tokens', { bearer: of.secret_key, body: { user_id: id } });
  expect(session.status).toBe(200);
  return { id, email, token: session.body.token as string, refreshToken: session.body.refresh_token as string };
}

describe('custom claims', () => {
  it('are in the token at sign-in and follow public_metadata at the next refresh; /v1/me accepts the token', async () => {
    const user = await signedIn(app, { public_metadata: { role: 'admin', tier: { level: 2 } } });
    const claims = payload(user.token);
    expect(claims).toMatchObject({ sub: user.id, role: 'admin', tier: { level: 2 }, verified: false, label: `admin of ${user.email}`, email: user.email });
    expect(claims).not.toHaveProperty('missing');
    expect((await api(server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: user.token })).status).toBe(200);

    expect((await api(server, 'PATCH', `/v1/users/${user.id}`, { bearer: app.secret_key, body: { public_metadata: { role: 'owner', tier: 3 } } })).status).toBe(200);
    const refreshed = await refresh(app, user.refreshToken);
    expect(refreshed.status).toBe(200);
    expect(payload(refreshed.body.access_token)).toMatchObject({ role: 'owner', tier: 3, label: `owner of ${user.email}` });
    expect((await api(server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: refreshed.body.access_token })).status).toBe(200);
  });

  it('a template changed by `gatehouse app update` applies at the next refresh; {} removes it', async () => {
    const own = await createApp(server, { tenantId: app.tenant_id });
    const user = await signedIn(own, { public_metadata: { plan: 'pro' } });
    expect(payload(user.token)).not.toHaveProperty('plan');
    const updated = await cliJson<{ token_claims: object | null }>(server, ['app', 'update', own.app_id, '--token-claims', '{"plan": "{{user.public_metadata.plan}}"}', '--json']);
    expect(updated.token_claims).toEqual({ plan: '{{user.public_metadata.plan}}' });
    const first = await refresh(own, user.refreshToken);
    expect(payload(first.body.access_token)).toMatchObject({ plan: 'pro' });
    expect((await cliJson<{ token_claims: object | null }>(server, ['app', 'update', own.app_id, '--token-claims', '{}', '--json'])).token_claims).toBeNull();
    expect(payload((await refresh(own, first.body.refresh_token)).body.access_token)).not.toHaveProperty('plan');
  });

  it('reserved names, private or unsafe metadata, a non-string value and more than 20 claims: the CLI exits 2 with the reason, nothing changes', async () => {
    const refused: [string, RegExp][] = [
      ['{"sub": "{{user.id}}"}', /claim name sub is reserved/],
      ['{"auth_time": "1"}', /reserved/],
      ['{"email": "{{user.email}}"}', /reserved/],
      ['{"org_role": "{{user.public_metadata.role}}"}', /claim name org_role is reserved/],
      ['{"plan": "{{user.private_metadata.plan}}"}', /reads user\.private_metadata\.plan/],
      ['{"note": "x {{user.unsafe_metadata.note}}"}', /only user\.id, user\.email/],
      ['{"n": 1}', /must be a string template/],
      ['[1]', /expected a JSON object/],
      [JSON.stringify(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`c${i}`, '{{user.id}}']))), /at most 20/],
    ];
    for (const [template, reason] of refused) {
      const result = await server.cli(['app', 'update', app.app_id, '--token-claims', template]);
      expect(result.code, template).toBe(2);
      expect(result.stderr, template).toMatch(reason);
    }
    expect((await cliJson<{ token_claims: object }>(server, ['app', 'show', app.app_id, '--json'])).token_claims).toEqual(TEMPLATE);
  });

  it('private and unsafe metadata never reach the token', async () => {
    const user = await signedIn(app, { public_metadata: { role: 'member' }, private_metadata: { role: 'secret-role', tier: 'hidden' }, unsafe_metadata: { tier: 'forged' } });
    const claims = payload(user.token);
    expect(claims).toMatchObject({ role: 'member' });
    expect(claims).not.toHaveProperty('tier');
    expect(JSON.stringify(claims)).not.toMatch(/secret-role|hidden|forged/);
  });

  it('a result past 4 KiB is left out: the token is still issued, under 4 KiB, and the warning holds no user data', async () => {
    const big = await createApp(server, { tenantId: app.tenant_id, args: ['--token-claims', '{"blob": "{{user.public_metadata.blob}}", "role": "{{user.public_metadata.role}}"}'] });
    const blob = `huge-${'x'.repeat(4000)}`;
    const user = await signedIn(big, { public_metadata: { blob, role: 'admin' } });
    expect(user.token.length).toBeLessThanOrEqual(4096);
    const claims = payload(user.token);
    expect(claims).toMatchObject({ sub: user.id, email: user.email });
    expect(claims).not.toHaveProperty('blob');
    expect(claims).not.toHaveProperty('role');
    const refreshed = await refresh(big, user.refreshToken);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token.length).toBeLessThanOrEqual(4096);
    expect((await api(server, 'GET', '/v1/me', { publishableKey: big.publishable_key, bearer: refreshed.body.access_token })).status).toBe(200);
    const logs = await server.logs();
    expect(logs).toMatch(/token_claims_too_large/);
    expect(logs).not.toContain('huge-x');
    expect(logs).not.toContain(user.email);
  });

  it("another app's template is not applied", async () => {
    const user = await signedIn(other, { public_metadata: { role: 'admin', tier: 1 } });
    const claims = payload(user.token);
    expect(claims).toMatchObject({ sub: user.id, aud: other.app_id });
    for (const name of Object.keys(TEMPLATE)) expect(claims).not.toHaveProperty(name);
  });
});
