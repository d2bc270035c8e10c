import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type ReceivedWebhook, type Receiver } from '../helpers/webhook-receiver.js';

// docs/webhooks.md: deliveries in the Standard Webhooks format, checked by its reference verifiers; retries on
// WEBHOOK_RETRY_SCHEDULE (here 1 s, 1 s: three attempts at most), 410, redirects, bodies cut at 4 KiB, rotation.

const verifyBoth = (secret: string, hook: ReceivedWebhook) => {
  const headers = { 'webhook-id': String(hook.headers['webhook-id']), 'webhook-timestamp': String(hook.headers['webhook-timestamp']), 'webhook-signature': String(hook.headers['webhook-signature']) };
  const parsed = new StandardWebhook(secret).verify(hook.body, headers);
  new SvixWebhook(secret).verify(hook.body, headers);
  return parsed as { type: string; timestamp: string; data: Record<string, unknown> };
};

describe('17 webhook delivery', () => {
  let server: TestServer;
  let receiver: Receiver;
  let app: TestApp;
  let path = 0;
  const secret = (method: string, url: string, body?: unknown) => api(server, method, url, { bearer: app.secret_key, body });
  const endpoint = async (extra: Record<string, unknown> = {}) => {
    const at = `/hook-${++path}`;
    // webhook.test only unless the case says: the app's other endpoints' webhook.created events stay away.
    const res = await secret('POST', '/v1/webhooks', { url: receiver.url + at, event_types: ['webhook.test'], ...extra });
    expect(res.status).toBe(201);
    return { ...res.body, path: at } as { webhook_id: string; secret: string; path: string };
  };
  const deliveries = async (id: string, query = '') => (await secret('GET', `/v1/webhooks/${id}/deliveries${query}`)).body;
  const settledDelivery = async (id: string, deliveryId: string) => {
    for (let i = 0; i < 400; i++) {
      const found = (await deliveries(id)).deliveries.find((d: { delivery_id: string }) => d.delivery_id === deliveryId);
      if (found && found.status !== 'pending') return found;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('delivery did not settle');
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1' });
    app = await createApp(server);
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it('POST .../test → 202; the webhook.test event arrives signed, verified by standardwebhooks and svix, and is recorded succeeded', async () => {
    const hook = await endpoint();
    const res = await secret('POST', `/v1/webhooks/${hook.webhook_id}/test`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ delivery_id: expect.stringMatching(/^dlv_/) });
    const [got] = await receiver.waitFor(hook.path, 1);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toMatch(/^Gatehouse-Webhooks\/\d+\.\d+\.\d+$/);
    expect(got.headers['webhook-id']).toMatch(/^evt_[A-Za-z0-9]{20,}$/);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    const body = verifyBoth(hook.secret, got);
    expect(body).toEqual({
      type: 'webhook.test',
      timestamp: expect.stringMatching(/Z$/),
      data: expect.objectContaining({ event_id: got.headers['webhook-id'], app_id: app.app_id, tenant_id: app.tenant_id, webhook_id: hook.webhook_id, actor: { type: 'secret_key', id: null } }),
    });
    // Another secret, or a changed body, is refused by both verifiers.
    const wrong = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => verifyBoth(wrong, got)).toThrow();
    expect(() => verifyBoth(hook.secret, { ...got, body: got.body.replace('webhook.test', 'webhook.tesT') })).toThrow();
    const delivery = await settledDelivery(hook.webhook_id, res.body.delivery_id);
    expect(delivery).toEqual({
      delivery_id: res.body.delivery_id,
      event_id: got.headers['webhook-id'],
      event_type: 'webhook.test',
      status: 'succeeded',
      attempts: 1,
      next_attempt_at: null,
      last_attempt_at: expect.stringMatching(/Z$/),
      last_status_code: 200,
      last_error: null,
    });
    expect((await secret('GET', `/v1/webhooks/${hook.webhook_id}`)).body.stats).toEqual({ succeeded_24h: 1, failed_24h: 0 });
  });

  it("an event is queued in its change's transaction for each endpoint that subscribes to it: POST /v1/users → user.created, its body the event of GET /v1/events", async () => {
    const own = await createApp(server);
    const as = (method: string, url: string, body?: unknown) => api(server, method, url, { bearer: own.secret_key, body });
    const make = async (event_types: string[]) => {
      const at = `/hook-${++path}`;
      return { ...(await as('POST', '/v1/webhooks', { url: receiver.url + at, event_types })).body, path: at };
    };
    const sessions = await make(['session.*']);
    const users = await make(['user.*']);
    const all = await make(['*']);
    const created = await as('POST', '/v1/users', { email: `hook.${Date.now()}@example.com` });
    expect(created.status).toBe(201);
    const ofType = (hooks: ReceivedWebhook[], type: string) => hooks.filter((r) => JSON.parse(r.body).type === type);
    const [toAll] = ofType(await receiver.waitFor(all.path, 2), 'user.created');
    const [toUsers] = await receiver.waitFor(users.path, 1);
    const body = verifyBoth(all.secret, toAll);
    verifyBoth(users.secret, toUsers);
    expect(toUsers.body).toBe(toAll.body);
    const event = (await as('GET', `/v1/events/${toAll.headers['webhook-id']}`)).body;
    expect(event.type).toBe('user.created');
    const { type, occurred_at, data, ...fields } = event;
    expect(body).toEqual({ type, timestamp: occurred_at, data: { ...data, ...fields } });
    expect(body.data).toMatchObject({ user_id: created.body.id, source: 'server', actor: { type: 'secret_key', id: null } });
    // The '*' endpoint also got its own webhook.created; session.* selects neither. A refused change (the same
    // email again: 409) queues nothing.
    expect(receiver.to(all.path).map((r) => JSON.parse(r.body).type).sort()).toEqual(['user.created', 'webhook.created']);
    expect((await as('POST', '/v1/users', { email: created.body.email })).status).toBe(409);
    await as('POST', `/v1/webhooks/${sessions.webhook_id}/test`);
    await receiver.waitFor(sessions.path, 1);
    expect(receiver.to(sessions.path).map((r) => JSON.parse(r.body).type)).toEqual(['webhook.test']);
    expect((await as('GET', `/v1/webhooks/${all.webhook_id}/deliveries`)).body.deliveries).toHaveLength(2);
  });

  it('webhook.created, .updated and .deleted are events of their change with its actor; a replay since a time queues the matching events again, same webhook-ids', async () => {
    const own = await createApp(server);
    const as = (method: string, url: string, body?: unknown) => api(server, method, url, { bearer: own.secret_key, body });
    const since = new Date(Date.now() - 1000).toISOString();
    const at = `/hook-${++path}`;
    const hook = (await as('POST', '/v1/webhooks', { url: receiver.url + at, event_types: ['user.*', 'webhook.*'] })).body;
    await as('POST', '/v1/users', { email: `replay.${Date.now()}@example.com` });
    await as('PATCH', `/v1/webhooks/${hook.webhook_id}`, { description: 'changed' });
    const first = await receiver.waitFor(at, 3);
    const types = first.map((r) => JSON.parse(r.body).type).sort();
    expect(types).toEqual(['user.created', 'webhook.created', 'webhook.updated']);
    const events = (await as('GET', '/v1/events?type=webhook.*')).body.events;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['webhook.updated', 'webhook.created']);
    expect(events[0]).toMatchObject({ actor: { type: 'secret_key', id: null }, data: { webhook_id: hook.webhook_id, changed: ['description'] } });
    expect(JSON.stringify(events)).not.toContain(hook.secret.slice(6));

    const replay = await as('POST', `/v1/webhooks/${hook.webhook_id}/replay`, { since });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ queued: 3 });
    const all = await receiver.waitFor(at, 6);
    expect(all.slice(3).map((r) => r.headers['webhook-id']).sort()).toEqual(first.map((r) => r.headers['webhook-id']).sort());
    for (const r of all) verifyBoth(hook.secret, r);
    expect((await as('POST', `/v1/webhooks/${hook.webhook_id}/replay`, { since: 'yesterday' })).status).toBe(400);
    expect((await secret('POST', `/v1/webhooks/${hook.webhook_id}/replay`, { since })).status).toBe(404);

    expect((await as('DELETE', `/v1/webhooks/${hook.webhook_id}`)).status).toBe(200);
    const deleted = (await as('GET', '/v1/events?type=webhook.deleted')).body.events;
    expect(deleted).toHaveLength(1);
    expect(deleted[0].data).toEqual({ webhook_id: hook.webhook_id });
  });

  it('a receiver failing twice then answering 200 gets three attempts with the same webhook-id, each verified', async () => {
    const hook = await endpoint();
    receiver.answer = (p, n) => (p === hook.path && n <= 2 ? { status: 503, body: 'down for maintenance' } : { status: 200 });
    const { delivery_id } = (await secret('POST', `/v1/webhooks/${hook.webhook_id}/test`)).body;
    const got = await receiver.waitFor(hook.path, 3);
    expect(new Set(got.map((g) => g.headers['webhook-id'])).size).toBe(1);
    expect(new Set(got.map((g) => g.body)).size).toBe(1);
    for (const attempt of got) verifyBoth(hook.secret, attempt);
    const delivery = await settledDelivery(hook.webhook_id, delivery_id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 200, last_error: null });
    receiver.answer = () => ({ status: 200 });
  });

  it('after the last retry the delivery is failed, with the status and at most 1 KiB of the answer; POST .../retry sends it again, same webhook-id', async () => {
    const hook = await endpoint();
    receiver.answer = (p) => (p === hook.path ? { status: 500, body: 'x'.repeat(100_000) } : { status: 200 });
    const { delivery_id } = (await secret('POST', `/v1/webhooks/${hook.webhook_id}/test`)).body;
    const delivery = await settledDelivery(hook.webhook_id, delivery_id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 3, last_status_code: 500, next_attempt_at: null });
    expect(Buffer.byteLength(delivery.last_error)).toBe(1024);
    expect(receiver.to(hook.path)).toHaveLength(3);
    expect((await secret('GET', `/v1/webhooks/${hook.webhook_id}`)).body.stats).toEqual({ succeeded_24h: 0, failed_24h: 1 });
    expect((await deliveries(hook.webhook_id, '?status=failed')).deliveries.map((d: { delivery_id: string }) => d.delivery_id)).toEqual([delivery_id]);
    expect((await deliveries(hook.webhook_id, '?status=succeeded')).deliveries).toEqual([]);

    receiver.answer = () => ({ status: 200 });
    const retried = await secret('POST', `/v1/webhooks/${hook.webhook_id}/deliveries/${delivery_id}/retry`);
    expect(retried.status).toBe(202);
    const all = await receiver.waitFor(hook.path, 4);
    expect(all[3].headers['webhook-id']).toBe(all[0].headers['webhook-id']);
    expect(await settledDelivery(hook.webhook_id, delivery_id)).toMatchObject({ status: 'succeeded', attempts: 4 });
    expect((await secret('POST', `/v1/webhooks/${hook.webhook_id}/deliveries/dlv_unknown/retry`)).status).toBe(404);
  });

  it('a redirect is a failed attempt and is never followed', async () => {
    const hook = await endpoint();
    receiver.answer = (p) => (p === hook.path ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } } : { status: 200 });
    const { delivery_id } = (await secret('POST', `/v1/webhooks/${hook.webhook_id}/test`)).body;
    const delivery = await settledDelivery(hook.webhook_id, delivery_id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 3, last_status_code: 302 });
    expect(delivery.last_error).toContain('not followed');
    expect(receiver.to('/elsewhere')).toHaveLength(0);
    receiver.answer = () => ({ status: 200 });
  });

  it('410 disables the endpoint at once: enabled false with its reason, the delivery failed after one attempt', async () => {
    const hook = await endpoint();
    receiver.answer = (p) => (p === hook.path ? { status: 410 } : { status: 200 });
    const { delivery_id } = (await secret('POST', `/v1/webhooks/${hook.webhook_id}/test`)).body;
    expect(await settledDelivery(hook.webhook_id, delivery_id)).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410 });
    expect((await secret('GET', `/v1/webhooks/${hook.webhook_id}`)).body).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining('410') });
    const disabled = (await secret('GET', '/v1/events?type=webhook.disabled')).body.events;
    expect(disabled.find((e: { data: { webhook_id: string } }) => e.data.webhook_id === hook.webhook_id)).toMatchObject({ actor: { type: 'system', id: null }, data: { reason: expect.stringContaining('410') } });
    receiver.answer = () => ({ status: 200 });
  });

  it('rotate_secret: both secrets sign for 24 hours, each verifies on its own', async () => {
    const hook = await endpoint();
    const rotated = await secret('POST', `/v1/webhooks/${hook.webhook_id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ secret: expect.stringMatching(/^whsec_/), previous_expires_at: expect.stringMatching(/Z$/) });
    expect(rotated.body.secret).not.toBe(hook.secret);
    const hours = (Date.parse(rotated.body.previous_expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    await secret('POST', `/v1/webhooks/${hook.webhook_id}/test`);
    const [got] = await receiver.waitFor(hook.path, 1);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    verifyBoth(rotated.body.secret, got);
    verifyBoth(hook.secret, got);
  });

  it('deliveries page newest first with next_cursor (keyset)', async () => {
    const hook = await endpoint();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await secret('POST', `/v1/webhooks/${hook.webhook_id}/test`)).body.delivery_id);
    await receiver.waitFor(hook.path, 5);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { deliveries: { delivery_id: string }[]; next_cursor: string | null } = await deliveries(hook.webhook_id, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.deliveries.length).toBeLessThanOrEqual(2);
      seen.push(...page.deliveries.map((d) => d.delivery_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen.sort()).toEqual([...ids].sort());
    expect((await secret('GET', `/v1/webhooks/${hook.webhook_id}/deliveries?cursor=nonsense`)).status).toBe(400);
    expect((await secret('GET', `/v1/webhooks/${hook.webhook_id}/deliveries?status=lost`)).status).toBe(400);
  });

  it('/metrics: attempts by outcome (succeeded, retrying, failed) and the queue depth, labelled by outcome only', async () => {
    const scrape = async () => (await api(server, 'GET', '/metrics')).body as unknown as string;
    const sample = (text: string, series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.slice(series.length + 1));
    const outcome = (text: string, name: string) => sample(text, `gatehouse_webhook_attempts_total{outcome="${name}"}`);
    // A receiver that takes the request and never answers: the delivery stays queued while it holds it.
    const sockets: Socket[] = [];
    const hanging = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const hangUrl = `http://127.0.0.1:${(hanging.address() as { port: number }).port}/held`;
    const before = await scrape();
    const flaky = await endpoint();
    receiver.answer = (p, n) => (p === flaky.path && n <= 2 ? { status: 500 } : { status: 200 });
    const held = await secret('POST', '/v1/webhooks', { url: hangUrl, event_types: ['webhook.test'] });
    const heldDelivery = (await secret('POST', `/v1/webhooks/${held.body.webhook_id}/test`)).body.delivery_id as string;
    while (sockets.length === 0) await new Promise((r) => setTimeout(r, 25));
    const during = await scrape();
    expect(sample(during, 'gatehouse_webhook_queue_depth')).toBeGreaterThanOrEqual(1);
    const flakyDelivery = (await secret('POST', `/v1/webhooks/${flaky.webhook_id}/test`)).body.delivery_id as string;
    expect(await settledDelivery(flaky.webhook_id, flakyDelivery)).toMatchObject({ status: 'succeeded', attempts: 3 });
    // The held request is cut, the receiver gone: its retries are refused, and it fails for good.
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hanging.close(resolve));
    expect(await settledDelivery(held.body.webhook_id, heldDelivery)).toMatchObject({ status: 'failed', attempts: 3 });
    receiver.answer = () => ({ status: 200 });
    const after = await scrape();
    expect(outcome(after, 'succeeded') - outcome(before, 'succeeded')).toBeGreaterThanOrEqual(1);
    expect(outcome(after, 'retrying') - outcome(before, 'retrying')).toBe(4);
    expect(outcome(after, 'failed') - outcome(before, 'failed')).toBe(1);
    expect(sample(after, 'gatehouse_webhook_queue_depth')).toBe(0);
    // No URL, address, app or event in any webhook series.
    const series = after.split('\n').filter((l) => l.startsWith('gatehouse_webhook'));
    expect(series.length).toBeGreaterThanOrEqual(4);
    for (const line of series) expect(line).toMatch(/^gatehouse_webhook_(attempts_total\{outcome="(succeeded|retrying|failed)"\}|queue_depth) \d+$/);
  });
});

