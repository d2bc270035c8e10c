import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { api, createApp } from '../helpers/fixtures.js';
import { createDeployment, startNode, type Deployment, type NodeProcess } from '../helpers/node-process.js';

// Contract 17, "nothing lost": kill -9 of the node delivering webhooks while the receiver holds its
// requests open; after a restart every event arrives (at least once, the same webhook-id), and every
// delivery ends succeeded. Its lease (WEBHOOK_TIMEOUT_MS + 5 s) is what hands the cut attempts on.

const deployments: Deployment[] = [];
const nodes: NodeProcess[] = [];
let receiver: Server | undefined;
afterAll(async () => {
  for (const node of nodes) await node.stop();
  for (const deployment of deployments) await deployment.destroy();
  receiver?.closeAllConnections();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
});

describe('17 webhooks: kill -9 mid-attempt', () => {
  it('the requests held open when the node dies are made again after its restart, same webhook-id; none is lost', async () => {
    let holding = true;
    const held: ServerResponse[] = [];
    const answered: string[] = [];
    receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        if (holding) return void held.push(res);
        answered.push(String(req.headers['webhook-id']));
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    const deployment = await createDeployment({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1' } });
    deployments.push(deployment);
    const node = await startNode(deployment);
    nodes.push(node);
    const app = await createApp(node);
    const hook = await api(node, 'POST', '/v1/webhooks', { bearer: app.secret_key, body: { url, event_types: ['user.created'] } });
    expect(hook.status).toBe(201);
    for (let i = 0; i < 10; i++) expect((await api(node, 'POST', '/v1/users', { bearer: app.secret_key, body: { email: `crash.${Date.now().toString(36)}.${i}@example.com` } })).status).toBe(201);
    const events = (await api(node, 'GET', '/v1/events?type=user.created', { bearer: app.secret_key })).body.events as { event_id: string }[];
    expect(events).toHaveLength(10);
    // Every attempt in flight, held open by the receiver, when the node dies.
    while (held.length < 10) await new Promise((r) => setTimeout(r, 25));
    node.child.kill('SIGKILL');
    await node.exited;
    holding = false;
    for (const res of held) res.destroy();

    const restarted = await startNode(deployment);
    nodes.push(restarted);
    for (let i = 0; i < 1200 && !events.every((e) => answered.includes(e.event_id)); i++) await new Promise((r) => setTimeout(r, 50));
    expect(events.filter((e) => !answered.includes(e.event_id))).toEqual([]);
    expect(answered.every((id) => events.some((e) => e.event_id === id))).toBe(true);
    let deliveries: { status: string; event_id: string }[] = [];
    for (let i = 0; i < 400; i++) {
      deliveries = (await api(restarted, 'GET', `/v1/webhooks/${hook.body.webhook_id}/deliveries?limit=50`, { bearer: app.secret_key })).body.deliveries;
      if (deliveries.every((d) => d.status === 'succeeded')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(deliveries.map((d) => d.status)).toEqual(Array.from({ length: 10 }, () => 'succeeded'));
    expect(new Set(deliveries.map((d) => d.event_id))).toEqual(new Set(events.map((e) => e.event_id)));
  }, 120_000);
});
