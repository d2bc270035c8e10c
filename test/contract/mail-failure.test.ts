import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryDatabase } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { extractCode, startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

// Sending failures are never silently lost, and never the sign-up's problem: the email waits in the
// outbox, is retried, and when given up on is logged at error level and counted in /metrics
// (docs/operations.md, "The mail outbox").

let sink: SmtpSink;
let server: TestServer;
let app: TestApp;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startServer({ SMTP_URL: sink.url, MAIL_GIVE_UP_SECONDS: '3' });
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
  it('sign-up answers at once; the email is retried, then given up: logged at error level with mail_failed and counted', async () => {
    sink.refuseAll = true;
    try {
      const res = await signup('refused@example.com');
      expect(res.status).toBe(200);
      const [row] = await queryDatabase(server.databaseUrl, 'SELECT id FROM mail_outbox');
      expect(row).toBeDefined();
      await expect
        .poll(() => logLines().find((l) => l.outbox_id === row.id && (l.level as number) >= 50 && l.code === 'mail_failed'), { timeout: 15_000 })
        .toBeTruthy();
      const [gaveUp] = await queryDatabase(server.databaseUrl, `SELECT gave_up_at, attempts, last_error FROM mail_outbox WHERE id = '${row.id}'`);
      expect(gaveUp.gave_up_at).toBeTruthy();
      expect(Number(gaveUp.attempts)).toBeGreaterThanOrEqual(2);
      expect(String(gaveUp.last_error)).toMatch(/550|refuse/i);
      const metrics = await fetch(`${server.url}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(/^gatehouse_mail_given_up_total [1-9]/m);
      expect(metrics).toMatch(/^gatehouse_mail_failed_attempts_total [1-9]/m);
    } finally {
      sink.refuseAll = false;
    }
  });

  it('a refusal is retried: once the relay accepts again, the code arrives and the outbox row is gone', async () => {
    sink.failNext = true;
    const res = await signup('retry@example.com');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'verification_sent' });
    expect(extractCode((await sink.waitFor('retry@example.com', { timeoutMs: 10_000 })).text)).toMatch(/^\d{6}$/);
    await expect.poll(async () => (await queryDatabase(server.databaseUrl, 'SELECT id FROM mail_outbox WHERE gave_up_at IS NULL')).length).toBe(0);
  });
});
