import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { extractCode, startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

// The issue's "sending failures are logged with the request id and answered with a clear 5xx, never silently
// lost", over contract.md sections 0 (error shape, X-Request-ID) and 1 (SMTP_URL).

let sink: SmtpSink;
let server: TestServer;
let app: TestApp;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startServer({ SMTP_URL: sink.url });
  app = await createApp(server, { args: ['--hashcash', 'off'] });
});
afterAll(async () => {
  await server?.stop();
  await sink?.close();
});

const signup = (email: string) => api(server, 'POST', '/v1/signups', { publishableKey: app.publishable_key, body: { email } });

function logLines(): Array<Record<string, unknown>> {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('1 SMTP_URL: a relay that refuses the email', () => {
  it('sign-up answers 503 {detail} with X-Request-ID, and the server logs an error with that request id', async () => {
    sink.refuseAll = true;
    try {
      const res = await signup('refused@example.com');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: expect.any(String) });
      expect(res.body.detail).toMatch(/email/);
      const requestId = res.headers.get('x-request-id');
      expect(requestId).toBeTruthy();
      await expect.poll(() => logLines().find((l) => l.reqId === requestId && (l.level as number) >= 50 && l.code === 'mail_failed'), { timeout: 5_000 }).toBeTruthy();
    } finally {
      sink.refuseAll = false;
    }
  });

  it('nothing is half-done: once the relay accepts again, the same email signs up and receives its code', async () => {
    sink.failNext = true;
    expect((await signup('retry@example.com')).status).toBe(503);
    const res = await signup('retry@example.com');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'verification_sent' });
    expect(extractCode((await sink.waitFor('retry@example.com')).text)).toMatch(/^\d{6}$/);
  });
});
