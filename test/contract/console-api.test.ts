import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { api, type TestApp } from '../helpers/fixtures.js';
import { addMember, ADMIN_TOKEN, consoleApp, consoleUser, manage, tenantOwnedBy, type ConsoleUser } from '../helpers/console.js';

// docs/management.md, docs/billing.md: what the console reads besides its pages' data: who the credential
// is (GET /v1/console/session), and billing with a Console credential and X-App-Id, its ledger by keyset pages.

let env: AuthEnv;
let console_: TestApp;
let owner: ConsoleUser;
let viewer: ConsoleUser;
let tenantId: string;
let appId: string;

beforeAll(async () => {
  env = await startAuthServer({ ADMIN_TOKEN, RATE_LIMITS: 'off' });
  console_ = await consoleApp(env.server);
  owner = await consoleUser(env, console_, 'owner');
  viewer = await consoleUser(env, console_, 'viewer');
  tenantId = await tenantOwnedBy(env, owner, 'Billed');
  await addMember(env, tenantId, viewer, 'viewer');
  const app = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Shop' });
  expect(app.status, JSON.stringify(app.body)).toBe(201);
  appId = app.body.app_id;
}, 180_000);
afterAll(async () => {
  await env?.stop();
});

describe('GET /v1/console/session', () => {
  it('names a member, the operator, ADMIN_TOKEN and a tenant API token, each with what it may do', async () => {
    const member = await manage(env.server, owner.token, 'GET', '/v1/console/session');
    expect(member.status, JSON.stringify(member.body)).toBe(200);
    expect(member.body).toEqual({ user_id: owner.userId, email: owner.email, operator: false, tenant_creation: false });

    const named = await consoleUser(env, console_, 'operator');
    expect((await env.server.cli(['operator', 'add', '--email', named.email])).code).toBe(0);
    expect((await manage(env.server, named.token, 'GET', '/v1/console/session')).body).toEqual({ user_id: named.userId, email: named.email, operator: true, tenant_creation: true });
    expect((await manage(env.server, ADMIN_TOKEN, 'GET', '/v1/console/session')).body).toEqual({ user_id: null, email: null, operator: true, tenant_creation: true });

    const token = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'ci', role: 'admin' });
    expect(token.status).toBe(201);
    expect((await manage(env.server, token.body.token, 'GET', '/v1/console/session')).body).toEqual({ user_id: null, email: null, operator: false, tenant_creation: false });
  }, 180_000);

  it('is 401 without a Console credential, with a bad one, or with an app user’s session', async () => {
    expect((await api(env.server, 'GET', '/v1/console/session')).status).toBe(401);
    expect((await manage(env.server, ADMIN_TOKEN + 'x', 'GET', '/v1/console/session')).body).toMatchObject({ code: 'unauthenticated' });
    const created = await manage(env.server, owner.token, 'GET', `/v1/apps/${appId}`);
    expect(created.status).toBe(200);
    const other = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Other' });
    expect((await api(env.server, 'GET', '/v1/console/session', { bearer: other.body.secret_key })).status).toBe(401);
  }, 180_000);

  it('with CONSOLE_OPEN_SIGNUP=true, every console user may create tenants (and does)', async () => {
    const open = await startAuthServer({ ADMIN_TOKEN, RATE_LIMITS: 'off', CONSOLE_OPEN_SIGNUP: 'true' });
    try {
      const user = await consoleUser(open, await consoleApp(open.server), 'open');
      expect((await manage(open.server, user.token, 'GET', '/v1/console/session')).body).toEqual({ user_id: user.userId, email: user.email, operator: false, tenant_creation: true });
      expect((await manage(open.server, user.token, 'POST', '/v1/tenants', { name: 'Mine' })).status).toBe(201);
    } finally {
      await open.stop();
    }
  }, 180_000);
});

type Account = typeof import('../../src/services/billing/account.js');
const credit = async (cents: number, note: string) => {
  const account = (await import(/* @vite-ignore */ new URL('../../dist/src/services/billing/account.js', import.meta.url).href)) as Account;
  await account.adjustBalance(await env.server.deps(), tenantId, cents, note);
};

describe('billing with a Console credential', () => {
  it('a member reads billing and pages the ledger by keyset through X-App-Id; a viewer cannot top up; another tenant’s member gets 404', async () => {
    for (const [cents, note] of [[1000, 'first'], [250, 'second'], [-75, 'third'], [500, 'fourth'], [125, 'fifth']] as const) await credit(cents, note);
    const overview = await manage(env.server, viewer.token, 'GET', '/v1/billing', undefined, appId);
    expect(overview.status, JSON.stringify(overview.body)).toBe(200);
    expect(overview.body).toMatchObject({ tenant_id: tenantId, balance_usd: 18, paused: false, usage: { monthly_active_users: 0 } });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await manage(env.server, owner.token, 'GET', `/v1/billing/transactions?limit=2${cursor ? `&cursor=${cursor}` : ''}`, undefined, appId);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.transactions.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.transactions.map((t: { description: string }) => t.description));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(['fifth', 'fourth', 'third', 'second', 'first']);
    expect(pages).toBe(3);
    const all = await manage(env.server, owner.token, 'GET', '/v1/billing/transactions?limit=5', undefined, appId);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.transactions[0]).toMatchObject({ type: 'adjustment', amount_usd: 1.25, balance_after_usd: 18, description: 'fifth', payment_id: null });

    for (const bad of ['abc', '0', '-1', '1'.repeat(20)]) {
      const refused = await manage(env.server, owner.token, 'GET', `/v1/billing/transactions?cursor=${bad}`, undefined, appId);
      expect(refused.status, bad).toBe(400);
      expect(refused.body).toMatchObject({ code: 'validation_failed', detail: expect.any(String) });
    }

    const topup = await manage(env.server, viewer.token, 'POST', '/v1/billing/topups', { amount_usd: 5, method: 'crypto' }, appId);
    expect(topup.status).toBe(403);
    expect((await manage(env.server, viewer.token, 'GET', '/v1/billing/transactions', undefined, appId)).body.transactions).toHaveLength(5);

    const stranger = await consoleUser(env, console_, 'stranger');
    await tenantOwnedBy(env, stranger, 'Elsewhere');
    expect((await manage(env.server, stranger.token, 'GET', '/v1/billing', undefined, appId)).status).toBe(404);
    expect((await manage(env.server, stranger.token, 'GET', '/v1/billing/transactions', undefined, appId)).status).toBe(404);
    expect((await manage(env.server, owner.token, 'GET', '/v1/billing')).body).toMatchObject({ code: 'app_id_required' });
  }, 180_000);
});
