import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/operations.md and docs/billing.md: the append-only ledger in integer cents, manual credits and debits
// (`gatehouse billing credit`), monthly active users and metering runs that charge each
// (tenant, period, item) once. Prices: 0.37 USD per active user above 1 free.

const PRICES = 'mau=0.37,mau_free=1';
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ BILLING_PRICES: PRICES });
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

const thisMonth = () => new Date().toISOString().slice(0, 7);
const ledger = async (app: TestApp) =>
  (await api(server, 'GET', '/v1/billing/transactions?limit=200', { bearer: app.secret_key })).body.transactions as any[];
const overview = async (app: TestApp) => (await api(server, 'GET', '/v1/billing', { bearer: app.secret_key })).body;

/** `process`: a CLI process of its own (concurrent writers are processes; server.cli runs one at a time in this one). */
async function cli(args: string[], process = false) {
  const result = await (process ? server.cliProcess : server.cli)([...args, '--json']);
  return { code: result.code, body: result.code === 0 ? JSON.parse(result.stdout) : undefined, stderr: result.stderr };
}
const credit = (tenantId: string, amount: string, note = 'test', process = false) =>
  cli(['billing', 'credit', '--tenant', tenantId, '--amount-usd', amount, '--note', note], process);
const meter = (period: string) => cli(['billing', 'run', '--period', period]);

const DIST = new URL('../../dist/src/services/billing/', import.meta.url).href;
type Account = typeof import('../../src/services/billing/account.js');
type Metering = typeof import('../../src/services/billing/metering.js');
type Money = typeof import('../../src/services/billing/money.js');
type Pricing = typeof import('../../src/services/billing/pricing.js');
const billing = async () => {
  const [account, metering, money, pricing] = await Promise.all(['account.js', 'metering.js', 'money.js', 'pricing.js'].map((m) => import(/* @vite-ignore */ DIST + m)));
  return { account: account as Account, metering: metering as Metering, money: money as Money, pricing: pricing as Pricing };
};
// What `gatehouse billing credit` and `billing run` call (src/cli/billing.ts), in the test process on the
// server's database: for the ledger's arithmetic, where the CLI is not the subject (its exit codes and
// output are: the tests above keep real processes, as do the concurrent credits below).
async function creditHere(tenantId: string, amount: string): Promise<void> {
  const { account, money } = await billing();
  await account.adjustBalance(await server.deps(), tenantId, money.parseUsd(Number(amount), '--amount-usd', 'any'), 'test');
}
async function meterHere(period: string): Promise<void> {
  const { metering, pricing } = await billing();
  const deps = await server.deps();
  await metering.runMetering(deps, pricing.parsePeriod(period, deps.clock.now()));
}

let counter = 0;
/** A user of `app` who signs in now: active this month. */
async function activeUser(app: TestApp): Promise<{ refresh_token: string }> {
  const email = `active-${Date.now()}-${counter++}@example.com`;
  const password = 'correct horse battery';
  expect((await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email, password } })).status).toBe(201);
  const signin = await api(server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password } });
  expect(signin.status).toBe(200);
  return signin.body;
}

/** Every row's balance_after is the one before plus its amount; the newest equals the balance. */
function expectConsistent(rows: any[], balance: number) {
  const oldestFirst = [...rows].reverse();
  let running = 0;
  for (const row of oldestFirst) {
    running = Math.round((running + row.amount_usd) * 100) / 100;
    expect(row.balance_after_usd).toBe(running);
  }
  expect(running).toBe(balance);
}

describe('12 metering', () => {
  let app1: TestApp;
  let app2: TestApp;

  beforeAll(async () => {
    const tenant = await createTenant(server, 'Metered');
    app1 = await createApp(server, { tenantId: tenant, name: 'M1' });
    app2 = await createApp(server, { tenantId: tenant, name: 'M2' });
  });

  it('monthly active users: distinct users with a session started or refreshed this month, across the tenant’s apps', async () => {
    expect((await overview(app1)).usage.monthly_active_users).toBe(0);
    const first = await activeUser(app1);
    const refreshed = await api(server, 'POST', '/v1/tokens/session', { publishableKey: app1.publishable_key, body: { refresh_token: first.refresh_token } });
    expect(refreshed.status).toBe(200);
    await activeUser(app2);
    const usage = (await overview(app2)).usage;
    expect(usage.monthly_active_users).toBe(2);
    // (2 - 1 free) × 0.37
    expect(usage.estimated_charges_usd).toBe(0.37);
  });

  it('a metering run twice (at once) → one charge per (tenant, period, item)', async () => {
    const [a, b] = await Promise.all([meter(thisMonth()), meter(thisMonth())]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const mine = [...a.body.charges, ...b.body.charges].filter((c: any) => c.tenant_id === app1.tenant_id);
    expect(mine.filter((c: any) => c.item === 'monthly_active_users')).toEqual([
      expect.objectContaining({ period: thisMonth(), quantity: 2, amount_usd: 0.37 }),
    ]);
    const again = await meter(thisMonth());
    expect(again.code).toBe(0);
    expect(again.body.charges.filter((c: any) => c.tenant_id === app1.tenant_id)).toEqual([]);

    const rows = await ledger(app1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: 'usage', amount_usd: -0.37, balance_after_usd: -0.37, payment_id: null });
    expect(rows[0].description).toContain(thisMonth());
    expect(await ledger(app2)).toEqual(rows);
  });

  it('gatehouse billing run: a bad or future period exits 2', async () => {
    expect((await meter('2026-13')).code).toBe(2);
    expect((await meter('26-01')).code).toBe(2);
    expect((await meter('2999-01')).code).toBe(2);
  });

  it('gatehouse billing show --json answers as GET /v1/billing', async () => {
    const shown = await cli(['billing', 'show', '--tenant', app1.tenant_id]);
    expect(shown.code).toBe(0);
    expect(shown.body).toEqual(await overview(app1));
    expect((await cli(['billing', 'show', '--tenant', 'ten_unknown'])).code).toBe(1);
  });
});

describe('12 manual credits: gatehouse billing credit', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp(server, { name: 'Credited' });
  });

  it('an adjustment row, payment_id null, printed and listed; a negative amount is a debit', async () => {
    const up = await credit(app.tenant_id, '10.25', 'goodwill');
    expect(up.code).toBe(0);
    expect(up.body).toMatchObject({ type: 'adjustment', amount_usd: 10.25, balance_after_usd: 10.25, description: 'goodwill', payment_id: null });
    const down = await credit(app.tenant_id, '-0.25', 'correction');
    expect(down.body).toMatchObject({ type: 'adjustment', amount_usd: -0.25, balance_after_usd: 10 });
    expect((await ledger(app)).map((r) => r.transaction_id)).toEqual([down.body.transaction_id, up.body.transaction_id]);
    expect((await overview(app)).balance_usd).toBe(10);
  });

  it.each([['0'], ['1.005'], ['abc'], ['1e3'], ['100000.01']])('--amount-usd %s → exit 2, nothing written', async (amount) => {
    const before = await ledger(app);
    expect((await credit(app.tenant_id, amount)).code).toBe(2);
    expect(await ledger(app)).toEqual(before);
  });

  it('an unknown tenant → exit 1', async () => {
    expect((await credit('ten_doesnotexist', '5')).code).toBe(1);
  });
});

describe('12 ledger invariant', () => {
  it('after a random sequence of credits, debits and metering runs, balance = sum of rows = newest balance_after', async () => {
    const tenant = await createTenant(server, 'Random');
    const app = await createApp(server, { tenantId: tenant });
    await activeUser(app);
    await activeUser(app);
    await activeUser(app); // 3 active: a current-month run charges (3 - 1) × 0.37 = 0.74
    const ops: string[] = [];
    const periods = ['2026-01', '2026-06', thisMonth()];
    for (let i = 0; i < 10; i++) {
      const r = Math.random();
      if (r < 0.3) {
        const period = periods[Math.floor(Math.random() * periods.length)];
        ops.push(`run ${period}`);
        await meterHere(period);
      } else {
        const cents = Math.floor(Math.random() * 200_000) - 100_000 || 1;
        const amount = (cents / 100).toFixed(2);
        ops.push(`credit ${amount}`);
        await creditHere(tenant, amount);
      }
    }
    ops.push(`run ${thisMonth()}`);
    await meterHere(thisMonth());
    const rows = await ledger(app);
    const { balance_usd, paused } = await overview(app);
    expectConsistent(rows, balance_usd);
    expect(paused, ops.join(', ')).toBe(balance_usd < 0);
    expect(rows.filter((r) => r.type === 'usage')).toEqual([expect.objectContaining({ amount_usd: -0.74 })]);
    expect(rows.filter((r) => r.type === 'adjustment')).toHaveLength(ops.filter((o) => o.startsWith('credit')).length);
  }, 120_000);

  it('concurrent credits are all applied: balance_after values are distinct and consistent', async () => {
    const app = await createApp(server, { name: 'Concurrent' });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => credit(app.tenant_id, `${i + 1}.01`, 'test', true)));
    expect(results.map((r) => r.code)).toEqual(Array(6).fill(0));
    const rows = await ledger(app);
    expect(rows).toHaveLength(6);
    expectConsistent(rows, 21.06);
    expect((await overview(app)).balance_usd).toBe(21.06);
  }, 60_000);
});
