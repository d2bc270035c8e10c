import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/services/webhooks/address-guard.js';
import { sendWebhook } from '../../src/services/webhooks/sender.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { sharedServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// docs/webhooks.md, "No SSRF": without WEBHOOK_ALLOW_PRIVATE, endpoint URLs are https and no private address is
// reached: refused at creation (400) and, after resolution, at every attempt.

describe('17 webhooks: no request to a private address', () => {
  let server: TestServer;
  let app: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await sharedServer();
    app = await createApp(server);
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it.each([
    'http://hooks.example.com/',
    'https://127.0.0.1/',
    'https://127.1.2.3:8443/x',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://100.100.100.200/',
    'https://0.0.0.0/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[fd00:ec2::254]/',
    'https://[fe80::1]/',
    'https://localhost/',
    'https://api.localhost/',
    'https://2130706433/',
  ])('POST /v1/webhooks {url: %s} → 400 webhook_url_refused, nothing created', async (url) => {
    const res = await api(server, 'POST', '/v1/webhooks', { bearer: app.secret_key, body: { url } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'webhook_url_refused' });
    expect((await api(server, 'GET', '/v1/webhooks', { bearer: app.secret_key })).body).toEqual({ webhooks: [] });
  });

  it('a public https URL is accepted (a name that does not resolve yet too: each attempt checks it)', async () => {
    for (const url of ['https://93.184.215.14/hooks', 'https://hooks.gatehouse-test.invalid/x']) {
      const res = await api(server, 'POST', '/v1/webhooks', { bearer: app.secret_key, body: { url } });
      expect(res.status, url).toBe(201);
    }
  });

  it('at an attempt, a name resolving to loopback (localhost) is refused after resolution: nothing reaches the receiver', async () => {
    for (const url of [`http://localhost:${receiver.port}/a`, `https://localhost:${receiver.port}/b`, `http://127.0.0.1:${receiver.port}/c`]) {
      const result = await sendWebhook({ url, headers: {}, body: '{}', timeoutMs: 5_000, allowPrivate: false });
      expect(result.ok, url).toBe(false);
      expect(result.statusCode).toBeNull();
    }
    const refused = await sendWebhook({ url: `https://localhost:${receiver.port}/b`, headers: {}, body: '{}', timeoutMs: 5_000, allowPrivate: false });
    expect(refused.error).toMatch(/private address/);
    expect(receiver.received).toHaveLength(0);
    // The same attempt with WEBHOOK_ALLOW_PRIVATE=true arrives: the refusal above is the guard's.
    const allowed = await sendWebhook({ url: `http://localhost:${receiver.port}/d`, headers: {}, body: '{}', timeoutMs: 5_000, allowPrivate: true });
    expect(allowed).toEqual({ ok: true, statusCode: 200, error: null });
    expect(receiver.to('/d')).toHaveLength(1);
  });

  it('the address ranges: private, loopback, link-local, metadata and mapped forms refused; public ones pass', () => {
    for (const a of ['127.0.0.1', '10.1.1.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '::1', '::', 'fc00::1', 'fd12::1', 'fe80::1', '::ffff:10.0.0.1', '::ffff:7f00:1', '64:ff9b::7f00:1', '224.0.0.1', 'not-an-ip']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isPrivateAddress(a), a).toBe(false);
  });
});
