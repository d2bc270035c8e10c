import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/rate-limits.md: bot_signup_ip and bot_auth_bot. Failed requests count too, so no provider is needed.
let server: TestServer;
let app: TestApp;

beforeAll(async () => {
  server = await startServer({ RATE_LIMITS: 'bot_signup_ip=2/60,bot_auth_bot=2/60' });
  app = await createApp(server);
});
afterAll(async () => {
  await server?.stop();
});

describe('4.4 bots: 429 with Retry-After', () => {
  it('POST /v1/bot/signup: the third request from one IP within the window is 429', async () => {
    const body = { challenge_id: 'c1', public_key: 'not-a-key' };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await api(server, 'POST', '/v1/bot/signup', { publishableKey: app.publishable_key, body }));
    expect(statuses.map((r) => r.status)).toEqual([400, 400, 429]);
    expect(Number(statuses[2].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Object.keys(statuses[2].body)).toEqual(['detail', 'code']);
  });

  it('POST /v1/bot/auth: counted per bot, so another bot id is not limited', async () => {
    const botId = randomUUID();
    const body = (id: string) => ({ bot_id: id, timestamp: Math.floor(Date.now() / 1000), signature: Buffer.alloc(64).toString('base64') });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await api(server, 'POST', '/v1/bot/auth', { publishableKey: app.publishable_key, body: body(botId) })).status);
    expect(statuses).toEqual([404, 404, 429]);
    const other = await api(server, 'POST', '/v1/bot/auth', { publishableKey: app.publishable_key, body: body(randomUUID()) });
    expect(other.status).toBe(404);
  });
});
