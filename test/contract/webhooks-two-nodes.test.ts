import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// Contract 17, "each attempt made once": two nodes on one PostgreSQL database both run the webhook worker;
// every delivery is leased to one of them, so under a burst of events the receiver sees each webhook-id once.
describe.skipIf(TEST_DB !== 'postgres')('17 webhooks on two nodes', () => {
  let a: TestServer;
  let b: TestServer;
  let app: TestApp;
  let receiver: Receiver;
  const shared = { WEBHOOK_ALLOW_PRIVATE: 'true', PUBLIC_BASE_URL: 'https://auth.example.test' };

  beforeAll(async () => {
    receiver = await startReceiver();
    a = await startServer(shared);
    b = await startServer({ ...shared, DATABASE_URL: a.databaseUrl, MASTER_KEY: a.env.MASTER_KEY });
    app = await createApp(a);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await receiver?.close();
  });

  const succeeded = async (node: TestServer) => {
    const text = (await api(node, 'GET', '/metrics')).body as unknown as string;
    return Number(text.split('\n').find((l) => l.startsWith('gatehouse_webhook_attempts_total{outcome="succeeded"} '))?.split(' ')[1]);
  };

  it('a burst of 200 events written on both nodes: each delivered exactly once, one attempt each', async () => {
    const hook = await api(a, 'POST', '/v1/webhooks', { bearer: app.secret_key, body: { url: `${receiver.url}/burst`, event_types: ['user.created'] } });
    expect(hook.status).toBe(201);
    const before = (await succeeded(a)) + (await succeeded(b));
    const stamp = Date.now().toString(36);
    const created = await Promise.all(
      Array.from({ length: 200 }, (_, i) => api(i % 2 ? a : b, 'POST', '/v1/users', { bearer: app.secret_key, body: { email: `burst.${stamp}.${i}@example.com` } })),
    );
    expect(created.every((r) => r.status === 201)).toBe(true);
    const got = await receiver.waitFor('/burst', 200, 120_000);
    // Every attempt is recorded before the receiver's count is read again: the answers' counts are final.
    let deliveries: { status: string; attempts: number }[] = [];
    for (let i = 0; i < 400; i++) {
      deliveries = [];
      let cursor: string | null = null;
      do {
        const page: { deliveries: { status: string; attempts: number }[]; next_cursor: string | null } = (await api(b, 'GET', `/v1/webhooks/${hook.body.webhook_id}/deliveries?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { bearer: app.secret_key })).body;
        deliveries.push(...page.deliveries);
        cursor = page.next_cursor;
      } while (cursor);
      if (deliveries.length === 200 && deliveries.every((d) => d.status !== 'pending')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(deliveries.map((d) => [d.status, d.attempts])).toEqual(Array.from({ length: 200 }, () => ['succeeded', 1]));
    const ids = receiver.to('/burst').map((r) => String(r.headers['webhook-id']));
    expect(got.length).toBe(200);
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
    // The two nodes' attempts together are the 200, none made twice.
    expect((await succeeded(a)) + (await succeeded(b)) - before).toBe(200);
  }, 180_000);
});
