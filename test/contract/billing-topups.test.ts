import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmDonation, expireDonation, newBotKeys, setFailMode, startSim, type ConfirmationsSim } from '../helpers/confirmations.js';
import { queryDatabase } from '../helpers/db.js';
import { api, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/bots.md and docs/billing.md: crypto top-ups through the donation-confirmation provider (the simulator,
// driven through its controls), credited to the tenant's ledger exactly once.

let sim: ConfirmationsSim;
let server: TestServer;
let downServer: TestServer; // CONFIRMATIONS_URL points at a closed port
let appA: TestApp;
let appA2: TestApp; // another app of tenant A
let appB: TestApp; // another tenant
let downApp: TestApp;

beforeAll(async () => {
  sim = await startSim();
  // Nothing listens on port 1 (a port probed free could be taken by another test's server meanwhile).
  const closedPort = 1;
  [server, downServer] = await Promise.all([
    startServer({ CONFIRMATIONS_URL: sim.url, BILLING_CHAINS: 'ethereum,bitcoin' }),
    startServer({ CONFIRMATIONS_URL: `http://127.0.0.1:${closedPort}` }),
  ]);
  const tenantA = await createTenant(server, 'Tenant A');
  appA = await createApp(server, { tenantId: tenantA, name: 'A1' });
  appA2 = await createApp(server, { tenantId: tenantA, name: 'A2' });
  appB = await createApp(server, { name: 'B' });
  downApp = await createApp(downServer);
}, 120_000);
afterAll(async () => {
  await Promise.all([server?.stop(), downServer?.stop()]);
  await sim?.close();
});

const topup = (app: TestApp, body: unknown, on: TestServer = server) => api(on, 'POST', '/v1/billing/topups', { bearer: app.secret_key, body });
const poll = (app: TestApp, paymentId: string, on: TestServer = server) => api(on, 'GET', `/v1/billing/topups/${paymentId}`, { bearer: app.secret_key });
const ledger = async (app: TestApp, on: TestServer = server) => (await api(on, 'GET', '/v1/billing/transactions', { bearer: app.secret_key })).body.transactions as any[];
const balance = async (app: TestApp, on: TestServer = server) => (await api(on, 'GET', '/v1/billing', { bearer: app.secret_key })).body.balance_usd as number;
const topupRows = async (on: TestServer) => Number((await queryDatabase(on.databaseUrl, 'select count(*) as n from billing_topups'))[0].n);

describe('12 GET /v1/billing', () => {
  it('answers balance, pause state, usage of the current month and the BILLING_CHAINS payment methods', async () => {
    const res = await api(server, 'GET', '/v1/billing', { bearer: appB.secret_key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ tenant_id: appB.tenant_id, balance_usd: 0, paused: false, payment_methods: [{ method: 'crypto', chains: ['ethereum', 'bitcoin'] }] });
    const now = new Date();
    expect(res.body.usage).toEqual({
      period_start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      period_end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      monthly_active_users: 0,
      table_storage_bytes: 0,
      object_storage_bytes: 0,
      estimated_charges_usd: 0,
    });
  });

  it('4.9 billing is Secret: no key → 401, the publishable key → 403', async () => {
    expect((await api(server, 'GET', '/v1/billing')).status).toBe(401);
    expect((await api(server, 'GET', '/v1/billing', { bearer: appA.publishable_key })).status).toBe(403);
    expect((await api(server, 'GET', '/v1/billing', { bearer: 'sk_nope' })).status).toBe(401);
  });
});

describe('12 POST /v1/billing/topups validates before the provider', () => {
  it.each([
    ['0', 0],
    ['negative', -5],
    ['3 decimals', 1.005],
    ['over 100,000', 1e9],
    ['a string', '10'],
    ['null', null],
    ['an object', { usd: 1 }],
  ])('amount_usd %s → 400 and nothing written', async (_name, amount) => {
    const res = await topup(appA, { amount_usd: amount, method: 'crypto', chain: 'ethereum' });
    expect(res.status).toBe(400);
    expect(typeof res.body.detail).toBe('string');
  });

  it('amount_usd NaN (not JSON) → 400; missing → 400', async () => {
    const nan = await api(server, 'POST', '/v1/billing/topups', {
      bearer: appA.secret_key,
      headers: { 'content-type': 'application/json' },
      rawBody: '{"amount_usd": NaN, "method": "crypto", "chain": "ethereum"}',
    });
    expect(nan.status).toBe(400);
    expect((await topup(appA, { method: 'crypto', chain: 'ethereum' })).status).toBe(400);
  });

  it('unknown chain or method → 400', async () => {
    expect((await topup(appA, { amount_usd: 5, method: 'crypto', chain: 'dogecoin' })).status).toBe(400);
    expect((await topup(appA, { amount_usd: 5, method: 'card', chain: 'ethereum' })).status).toBe(400);
  });

  it('validation comes before any 502: a bad body to a server whose provider is down is 400', async () => {
    expect((await topup(downApp, { amount_usd: 0, method: 'crypto', chain: 'ethereum' }, downServer)).status).toBe(400);
    expect((await topup(downApp, { amount_usd: 5, method: 'crypto', chain: 'nope' }, downServer)).status).toBe(400);
  });

  it('no row of any kind after the bad bodies', async () => {
    expect(await ledger(appA)).toEqual([]);
  });
});

describe('12 top-up lifecycle', () => {
  it('201 pending with pay_to; confirmed at the provider → credited once under 50 concurrent polls', async () => {
    const created = await topup(appA, { amount_usd: 12.34, method: 'crypto', chain: 'ethereum' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', amount_usd: 12.34, method: 'crypto', chain: 'ethereum' });
    expect(created.body.pay_to.address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(typeof created.body.pay_to.amount).toBe('string');
    const id = created.body.payment_id;

    const pending = await poll(appA, id);
    expect(pending.status).toBe(200);
    expect(pending.body.status).toBe('pending');
    expect(await balance(appA)).toBe(0);

    await confirmDonation(sim, created.body.challenge_id);
    // Any app of the tenant may poll: half through each app.
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => poll(i % 2 ? appA : appA2, id)));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(results.every((r) => r.body.status === 'confirmed')).toBe(true);

    const rows = (await ledger(appA)).filter((t) => t.payment_id === id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: 'topup', amount_usd: 12.34, balance_after_usd: 12.34 });
    expect(await balance(appA2)).toBe(12.34);
    // Later polls do not credit again.
    expect((await poll(appA, id)).body.status).toBe('confirmed');
    expect(await balance(appA)).toBe(12.34);
  });

  it('expired at the provider → expired, nothing credited', async () => {
    const created = await topup(appA, { amount_usd: 3, method: 'crypto', chain: 'bitcoin' });
    expect(created.status).toBe(201);
    const before = await balance(appA);
    await expireDonation(sim, created.body.challenge_id);
    const res = await poll(appA, created.body.payment_id);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('expired');
    expect(await balance(appA)).toBe(before);
    expect((await ledger(appA)).some((t) => t.payment_id === created.body.payment_id)).toBe(false);
  });

  it('the chain defaults to the first of BILLING_CHAINS', async () => {
    const created = await topup(appA, { amount_usd: 1, method: 'crypto' });
    expect(created.status).toBe(201);
    expect(created.body.chain).toBe('ethereum');
  });

  it('12 another tenant’s payment_id → 404, an unknown one → 404, a malformed one → 400', async () => {
    const created = await topup(appA, { amount_usd: 2, method: 'crypto', chain: 'ethereum' });
    await confirmDonation(sim, created.body.challenge_id);
    expect((await poll(appB, created.body.payment_id)).status).toBe(404);
    expect((await poll(appA, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await poll(appA, 'not-a-uuid')).status).toBe(400);
    // The foreign poll did not credit tenant B, nor tenant A.
    expect(await balance(appB)).toBe(0);
    expect((await ledger(appA)).some((t) => t.payment_id === created.body.payment_id)).toBe(false);
  });

  it('7 a top-up’s challenge presented to POST /v1/bot/signup → 409 (usable once across bots and top-ups)', async () => {
    const created = await topup(appA, { amount_usd: 5, method: 'crypto', chain: 'ethereum' });
    await confirmDonation(sim, created.body.challenge_id);
    for (const app of [appA, appB]) {
      const res = await api(server, 'POST', '/v1/bot/signup', {
        publishableKey: app.publishable_key,
        body: { challenge_id: created.body.challenge_id, public_key: newBotKeys().publicKey },
      });
      expect(res.status).toBe(409);
    }
    // The top-up still credits.
    expect((await poll(appA, created.body.payment_id)).body.status).toBe('confirmed');
  });
});

describe('12 provider failures → 502, nothing changes', () => {
  it('provider unreachable on create → 502, no top-up stored', async () => {
    const before = await topupRows(downServer);
    const res = await topup(downApp, { amount_usd: 5, method: 'crypto', chain: 'ethereum' }, downServer);
    expect(res.status).toBe(502);
    expect(typeof res.body.detail).toBe('string');
    expect(await topupRows(downServer)).toBe(before);
  });

  it('provider answering 5xx on create and on read → 502; the confirmed top-up is credited once it recovers', async () => {
    const created = await topup(appA, { amount_usd: 7, method: 'crypto', chain: 'ethereum' });
    await confirmDonation(sim, created.body.challenge_id);
    const rowsBefore = await topupRows(server);
    const ledgerBefore = await ledger(appA);
    await setFailMode(sim, 'error');
    try {
      expect((await topup(appA, { amount_usd: 5, method: 'crypto', chain: 'ethereum' })).status).toBe(502);
      expect((await poll(appA, created.body.payment_id)).status).toBe(502);
      expect(await topupRows(server)).toBe(rowsBefore);
      expect(await ledger(appA)).toEqual(ledgerBefore);
    } finally {
      await setFailMode(sim, 'none');
    }
    expect((await poll(appA, created.body.payment_id)).body.status).toBe('confirmed');
  });

  it('provider timing out on create and on read → 502 (after the 5 s client timeout), nothing written', async () => {
    const created = await topup(appA, { amount_usd: 4, method: 'crypto', chain: 'ethereum' });
    await confirmDonation(sim, created.body.challenge_id);
    const ledgerBefore = await ledger(appA);
    const rowsBefore = await topupRows(server);
    await setFailMode(sim, 'hang');
    try {
      const [read, create] = await Promise.all([poll(appA, created.body.payment_id), topup(appA, { amount_usd: 3, method: 'crypto', chain: 'ethereum' })]);
      expect(read.status).toBe(502);
      expect(create.status).toBe(502);
      expect(await ledger(appA)).toEqual(ledgerBefore);
      expect(await topupRows(server)).toBe(rowsBefore);
    } finally {
      await setFailMode(sim, 'none');
    }
  }, 20_000);
});

describe('12 GET /v1/billing/transactions', () => {
  it.each([['0'], ['201'], ['-1'], ['abc'], ['1.5']])('limit=%s → 400', async (limit) => {
    expect((await api(server, 'GET', `/v1/billing/transactions?limit=${limit}`, { bearer: appA.secret_key })).status).toBe(400);
  });

  it('limit 1 and 200 answer; newest first; another tenant sees none of these rows', async () => {
    const all = await ledger(appA);
    expect(all.length).toBeGreaterThan(1);
    const one = await api(server, 'GET', '/v1/billing/transactions?limit=1', { bearer: appA.secret_key });
    expect(one.body.transactions).toEqual([all[0]]);
    expect((await api(server, 'GET', '/v1/billing/transactions?limit=200', { bearer: appA.secret_key })).status).toBe(200);
    const times = all.map((t) => t.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(await ledger(appB)).toEqual([]);
  });
});
