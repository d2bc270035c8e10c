import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkFor, signUp, startAuthServer, uniqueEmail, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import type { TestServer } from '../helpers/server.js';

// docs/billing.md: a balance below zero pauses every app of the tenant: every route but billing,
// health and JWKS answers 402 {detail}; a credit that brings the balance to zero or above resumes them at once.

const PASSWORD = 'correct horse battery';
const B = 'https://b.example.test';
let env: AuthEnv;
let server: TestServer;
let appA: TestApp; // tenant T, verification by link
let appB: TestApp; // tenant T, b.example.test
let other: TestApp; // another tenant: never paused here

beforeAll(async () => {
  // 5 USD per active user, none free: one metering run of this month takes the tenant below zero.
  env = await startAuthServer({ BILLING_PRICES: 'mau=5,mau_free=0' });
  server = env.server;
  const tenant = await createTenant(server, 'Paused');
  appA = await createApp(server, { tenantId: tenant, name: 'A', args: ['--domain', 'a.example.test', '--verification-method', 'link'] });
  appB = await createApp(server, { tenantId: tenant, name: 'B', args: ['--domain', 'b.example.test'] });
  other = await createApp(server, { name: 'Other' });
}, 120_000);
afterAll(async () => {
  await env?.stop();
});

async function cliOk(args: string[]) {
  const result = await server.cli([...args, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}
const credit = (amount: string) => cliOk(['billing', 'credit', '--tenant', appA.tenant_id, '--amount-usd', amount, '--note', 'test']);

async function serverUser(app: TestApp, email = uniqueEmail()) {
  const res = await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email, password: PASSWORD } });
  expect(res.status).toBe(201);
  return { email, id: res.body.id as string };
}
const signIn = (app: TestApp, email: string) => api(server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password: PASSWORD } });
const me = (app: TestApp, token: string) => api(server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token });
const paused = async () => (await api(server, 'GET', '/v1/billing', { bearer: appB.secret_key })).body.paused as boolean;

describe('12 pause and resume', () => {
  let user: { email: string; id: string };
  let accessToken: string;
  let link: URL;
  let ssoToken: string;

  beforeAll(async () => {
    user = await serverUser(appA);
    const signin = await signIn(appA, user.email);
    expect(signin.status).toBe(200);
    accessToken = signin.body.access_token;
    // An unopened verification link and an unexchanged SSO token, made before the pause.
    const email = uniqueEmail();
    expect((await signUp(server, appA, { email, password: PASSWORD })).status).toBe(200);
    link = await linkFor(env.sink, email);
    const { token } = (await api(server, 'POST', '/v1/sign_in_tokens', { bearer: appA.secret_key, body: { user_id: user.id } })).body;
    const bridge = await api(server, 'GET', `/v1/sso/bridge?return_to=${encodeURIComponent(`${B}/cb`)}`, { headers: { host: 'a.example.test' }, bearer: token });
    expect(bridge.status).toBe(302);
    ssoToken = new URL(bridge.headers.get('location')!).searchParams.get('__sso_token')!;
  });

  it('a debit below zero pauses every app of the tenant: sign-in, /v1/me, Secret routes, SSO and email links answer 402 {detail}', async () => {
    await credit('-1');
    expect(await paused()).toBe(true);
    for (const res of [
      await signIn(appA, user.email),
      await signIn(appB, user.email),
      await me(appA, accessToken),
      await api(server, 'GET', '/v1/users', { bearer: appA.secret_key }),
      await api(server, 'POST', '/v1/users', { bearer: appB.secret_key, body: { email: uniqueEmail(), password: PASSWORD } }),
      await api(server, 'POST', '/v1/challenges', { publishableKey: appA.publishable_key }),
      // Custom tables and buckets, by Secret key and by session.
      await api(server, 'GET', '/v1/tables', { bearer: appA.secret_key }),
      await api(server, 'POST', '/v1/tables', { bearer: appB.secret_key, body: { name: 'notes', columns: [{ name: 'title', type: 'text' }] } }),
      await api(server, 'GET', '/v1/tables/storage', { publishableKey: appA.publishable_key, bearer: accessToken }),
      await api(server, 'GET', '/v1/buckets', { bearer: appA.secret_key }),
      await api(server, 'POST', '/v1/buckets', { bearer: appB.secret_key, body: { name: 'photos' } }),
      await api(server, 'GET', '/v1/buckets/storage', { publishableKey: appA.publishable_key, bearer: accessToken }),
      await api(server, 'POST', '/v1/sso/exchange', { publishableKey: appB.publishable_key, body: { token: ssoToken } }),
      await api(server, 'GET', link.pathname + link.search),
      // A verified-domain Host resolves the app too.
      await api(server, 'POST', '/v1/signins', { headers: { host: 'b.example.test' }, body: { email: user.email, password: PASSWORD } }),
    ]) {
      expect(res.status).toBe(402);
      expect(typeof res.body.detail).toBe('string');
    }
  });

  it('while paused, billing, health and JWKS answer; another tenant is untouched', async () => {
    expect((await api(server, 'GET', '/v1/billing', { bearer: appA.secret_key })).status).toBe(200);
    expect((await api(server, 'GET', '/v1/billing/transactions', { bearer: appA.secret_key })).status).toBe(200);
    expect((await api(server, 'POST', '/v1/billing/topups', { bearer: appA.secret_key, body: { amount_usd: 0, method: 'crypto' } })).status).toBe(400);
    expect((await api(server, 'GET', '/v1/health')).status).toBe(200);
    expect((await api(server, 'GET', `/.well-known/jwks.json?app_id=${appA.app_id}`)).status).toBe(200);
    expect((await api(server, 'GET', '/.well-known/jwks.json', { headers: { host: 'a.example.test' } })).status).toBe(200);
    const stranger = await serverUser(other);
    expect((await signIn(other, stranger.email)).status).toBe(200);
  });

  it('a credit that brings the balance back to zero resumes at once: the link and SSO token still work', async () => {
    await credit('1');
    expect(await paused()).toBe(false);
    expect((await signIn(appA, user.email)).status).toBe(200);
    expect((await me(appA, accessToken)).status).toBe(200);
    expect((await api(server, 'GET', '/v1/tables', { bearer: appA.secret_key })).status).toBe(200);
    expect((await api(server, 'GET', '/v1/buckets/storage', { publishableKey: appA.publishable_key, bearer: accessToken })).status).toBe(200);
    expect((await api(server, 'GET', link.pathname + link.search)).status).toBe(302);
    expect((await api(server, 'POST', '/v1/sso/exchange', { publishableKey: appB.publishable_key, body: { token: ssoToken } })).status).toBe(200);
  });

  it('a metering run that takes the balance below zero pauses; a top-up-sized credit resumes', async () => {
    const before = (await api(server, 'GET', '/v1/billing', { bearer: appA.secret_key })).body;
    expect(before.usage.monthly_active_users).toBeGreaterThan(0);
    const run = await cliOk(['billing', 'run', '--period', new Date().toISOString().slice(0, 7)]);
    const charge = run.charges.find((c: any) => c.tenant_id === appA.tenant_id && c.item === 'monthly_active_users');
    expect(charge.amount_usd).toBe(before.usage.monthly_active_users * 5);
    expect(await paused()).toBe(true);
    expect((await signIn(appA, user.email)).status).toBe(402);
    const back = await credit(String(charge.amount_usd));
    expect(back.balance_after_usd).toBe(0);
    expect(await paused()).toBe(false);
    expect((await signIn(appA, user.email)).status).toBe(200);
  });
});
