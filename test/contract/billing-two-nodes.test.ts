import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmDonation, startSim, type ConfirmationsSim } from '../helpers/confirmations.js';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/billing.md at scale-out: a confirmed top-up is credited exactly once however many requests
// race on however many nodes; a pause made through one node is seen by the other on the next request.
describe.skipIf(TEST_DB !== 'postgres')('12 billing on two nodes sharing one PostgreSQL database', () => {
  let sim: ConfirmationsSim;
  let a: TestServer;
  let b: TestServer;
  let app: TestApp;

  beforeAll(async () => {
    sim = await startSim();
    const shared = { CONFIRMATIONS_URL: sim.url, PUBLIC_BASE_URL: 'https://auth.example.test' };
    a = await startServer(shared);
    b = await startServer({ ...shared, DATABASE_URL: a.databaseUrl, MASTER_KEY: a.env.MASTER_KEY });
    app = await createApp(a);
  }, 120_000);
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await sim?.close();
  });

  it('pending → confirmed → credited once under 50 concurrent polls split over the two nodes', async () => {
    const created = await api(a, 'POST', '/v1/billing/topups', { bearer: app.secret_key, body: { amount_usd: 25.5, method: 'crypto', chain: 'ethereum' } });
    expect(created.status).toBe(201);
    const id = created.body.payment_id;
    expect((await api(b, 'GET', `/v1/billing/topups/${id}`, { bearer: app.secret_key })).body.status).toBe('pending');
    await confirmDonation(sim, created.body.challenge_id);

    const polls = await Promise.all(
      Array.from({ length: 50 }, (_, i) => api(i % 2 ? a : b, 'GET', `/v1/billing/topups/${id}`, { bearer: app.secret_key })),
    );
    expect(polls.map((p) => p.status)).toEqual(Array(50).fill(200));
    expect(polls.every((p) => p.body.status === 'confirmed')).toBe(true);

    for (const node of [a, b]) {
      const { transactions } = (await api(node, 'GET', '/v1/billing/transactions', { bearer: app.secret_key })).body;
      expect(transactions).toEqual([expect.objectContaining({ type: 'topup', payment_id: id, amount_usd: 25.5, balance_after_usd: 25.5 })]);
      expect((await api(node, 'GET', '/v1/billing', { bearer: app.secret_key })).body.balance_usd).toBe(25.5);
    }
  });

  it('a debit below zero through one node pauses the app on the other at once; a credit resumes it there', async () => {
    const created = await api(a, 'POST', '/v1/users', { bearer: app.secret_key, body: { email: `two-nodes-${Date.now()}@example.com`, password: 'correct horse battery' } });
    expect(created.status).toBe(201);
    const debit = await a.cli(['billing', 'credit', '--tenant', app.tenant_id, '--amount-usd', '-30', '--note', 'debit']);
    expect(debit.code).toBe(0);
    expect((await api(b, 'GET', '/v1/users', { bearer: app.secret_key })).status).toBe(402);
    expect((await api(a, 'GET', '/v1/users', { bearer: app.secret_key })).status).toBe(402);
    const back = await b.cli(['billing', 'credit', '--tenant', app.tenant_id, '--amount-usd', '4.5', '--note', 'back']);
    expect(back.code).toBe(0);
    expect((await api(b, 'GET', '/v1/users', { bearer: app.secret_key })).status).toBe(200);
    expect((await api(a, 'GET', '/v1/users', { bearer: app.secret_key })).status).toBe(200);
  });
});
