import { InvalidWebhookError, verifyWebhook, type GatehouseWebhookEvent } from '@gatehouse/server';
import { serve } from '@hono/node-server';
import express from 'express';
import { Hono } from 'hono';
import { readFile, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { root, tsBlocks, typeCheck } from '../helpers/readme-types.js';
import { sharedServer, type TestServer } from '../helpers/server.js';

// @gatehouse/server's verifyWebhook behind the Express and Hono receivers of docs/webhooks.md (the same code,
// de-duplicating by webhook-id), fed by a real Gatehouse server; and the guide's snippets type-check.

interface Handled {
  events: GatehouseWebhookEvent[];
  arrivals: number;
  refused: number;
}

describe('51 server sdk: verifyWebhook', () => {
  let gatehouse: TestServer;
  let app: TestApp;
  let expressServer: Server;
  let honoServer: Server;
  const secrets = new Map<string, string>();
  const handled = { express: { events: [], arrivals: 0, refused: 0 } as Handled, hono: { events: [], arrivals: 0, refused: 0 } as Handled };
  const secret = (method: string, path: string, body?: unknown) => api(gatehouse, method, path, { bearer: app.secret_key, body });
  let dir: string | undefined;

  beforeAll(async () => {
    gatehouse = await sharedServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    app = await createApp(gatehouse);

    const seenByExpress = new Set<string>();
    const web = express();
    web.post('/webhooks/gatehouse', express.raw({ type: 'application/json' }), (req, res) => {
      handled.express.arrivals += 1;
      let event;
      try {
        event = verifyWebhook(req.body as Buffer, req.headers, secrets.get('express')!);
      } catch (error) {
        if (error instanceof InvalidWebhookError) {
          handled.express.refused += 1;
          return res.status(400).json({ detail: error.message });
        }
        throw error;
      }
      if (seenByExpress.has(event.data.event_id)) return res.sendStatus(200);
      seenByExpress.add(event.data.event_id);
      handled.express.events.push(event);
      res.sendStatus(204);
    });
    expressServer = web.listen(0, '127.0.0.1');
    await new Promise((r) => expressServer.once('listening', r));

    const seenByHono = new Set<string>();
    const hono = new Hono();
    hono.post('/webhooks/gatehouse', async (c) => {
      handled.hono.arrivals += 1;
      let event: GatehouseWebhookEvent;
      try {
        event = verifyWebhook(await c.req.text(), c.req.raw.headers, secrets.get('hono')!);
      } catch (error) {
        if (error instanceof InvalidWebhookError) {
          handled.hono.refused += 1;
          return c.json({ detail: error.message }, 400);
        }
        throw error;
      }
      if (!seenByHono.has(event.data.event_id)) {
        seenByHono.add(event.data.event_id);
        handled.hono.events.push(event);
      }
      return c.body(null, 204);
    });
    honoServer = serve({ fetch: hono.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
    if (!honoServer.listening) await new Promise((r) => honoServer.once('listening', r));
  });
  afterAll(async () => {
    await gatehouse?.stop();
    expressServer?.close();
    honoServer?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const waitUntil = async (check: () => boolean) => {
    for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
    expect(check()).toBe(true);
  };

  it.each(['express', 'hono'] as const)('%s: the event arrives verified and typed; a retry with the same webhook-id is answered 2xx and handled once', async (name) => {
    const port = (name === 'express' ? expressServer : honoServer).address() as AddressInfo;
    const created = await secret('POST', '/v1/webhooks', { url: `http://127.0.0.1:${port.port}/webhooks/gatehouse`, event_types: ['webhook.test'] });
    secrets.set(name, created.body.secret);
    const { delivery_id } = (await secret('POST', `/v1/webhooks/${created.body.webhook_id}/test`)).body;
    await waitUntil(() => handled[name].events.length === 1);
    const [event] = handled[name].events;
    expect(event.type).toBe('webhook.test');
    if (event.type === 'webhook.test') expect(event.data.webhook_id).toBe(created.body.webhook_id);
    expect(event.data).toMatchObject({ app_id: app.app_id, tenant_id: app.tenant_id, event_id: expect.stringMatching(/^evt_/) });

    expect((await secret('POST', `/v1/webhooks/${created.body.webhook_id}/deliveries/${delivery_id}/retry`)).status).toBe(202);
    await waitUntil(() => handled[name].arrivals === 2);
    const page = async () => (await secret('GET', `/v1/webhooks/${created.body.webhook_id}/deliveries`)).body.deliveries[0];
    for (let i = 0; i < 200 && (await page()).attempts < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await page()).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(handled[name].events).toHaveLength(1);
    expect(handled[name].refused).toBe(0);
  });

  it('refuses a body changed on the way, another secret, a stale timestamp; accepts either of two secrets', () => {
    const key = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const other = `whsec_${Buffer.alloc(32, 4).toString('base64')}`;
    const body = JSON.stringify({ type: 'user.deleted', timestamp: new Date().toISOString(), data: { event_id: 'evt_x', user_id: 'u' } });
    const now = new Date();
    const headers = { 'webhook-id': 'evt_x', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': new Webhook(key).sign('evt_x', now, body) };
    expect(verifyWebhook(body, headers, key).type).toBe('user.deleted');
    expect(verifyWebhook(Buffer.from(body), new Headers(headers), [other, key]).data.event_id).toBe('evt_x');
    expect(() => verifyWebhook(body.replace('"u"', '"v"'), headers, key)).toThrow(InvalidWebhookError);
    expect(() => verifyWebhook(body, headers, other)).toThrow(InvalidWebhookError);
    expect(() => verifyWebhook(body, { ...headers, 'webhook-signature': undefined }, key)).toThrow(InvalidWebhookError);
    const old = new Date(now.getTime() - 10 * 60_000);
    const stale = { 'webhook-id': 'evt_x', 'webhook-timestamp': String(Math.floor(old.getTime() / 1000)), 'webhook-signature': new Webhook(key).sign('evt_x', old, body) };
    expect(() => verifyWebhook(body, stale, key)).toThrow(InvalidWebhookError);
  });

  it("docs/webhooks.md's Express and Hono receivers type-check under tsc --strict against the built package", async () => {
    const blocks = tsBlocks(await readFile(join(root, 'docs/webhooks.md'), 'utf8'));
    expect(blocks).toHaveLength(2);
    const run = await typeCheck(blocks, { '@gatehouse/server': 'packages/server/dist/index.d.ts' });
    dir = run.dir;
    expect(run.output).toBe('');
    expect(run.code).toBe(0);
  }, 120_000);
});
