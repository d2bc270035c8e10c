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

describe('issue 45, finding 8: mail the relay refused', () => {
  it("keeps no address in last_error, and goes with the user's deletion (another user's stays)", async () => {
    const stamp = Date.now();
    const gone = `gone-${stamp}@example.com`;
    const kept = `kept-${stamp}@example.com`;
    sink.refuseAll = true;
    try {
      for (const email of [gone, kept]) expect((await signup(email)).status).toBe(200);
      await expect
        .poll(async () => (await queryDatabase(server.databaseUrl, 'SELECT id FROM mail_outbox WHERE gave_up_at IS NULL')).length, { timeout: 15_000 })
        .toBe(0);
    } finally {
      sink.refuseAll = false;
    }
    const rows = await queryDatabase(server.databaseUrl, `SELECT id, last_error, recipient_hash FROM mail_outbox WHERE app_id = '${app.app_id}' AND created_at > '${new Date(stamp - 1000).toISOString()}'`);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      // The relay's words stay (what an operator needs), the address masked to its first letter and domain.
      expect(String(row.last_error)).toMatch(/[gk]\*\*\*@example\.com/);
      expect(String(row.last_error)).not.toContain(`-${stamp}@`);
    }
    const listed = await api(server, 'GET', `/v1/users?email=${encodeURIComponent(gone)}`, { bearer: app.secret_key });
    const userId = listed.body.users[0].id as string;
    expect((await api(server, 'DELETE', `/v1/users/${userId}`, { bearer: app.secret_key })).status).toBe(200);
    const left = await queryDatabase(server.databaseUrl, `SELECT id FROM mail_outbox WHERE id IN ('${rows.map((r) => r.id).join("','")}')`);
    expect(left).toHaveLength(1);
    expect((await queryDatabase(server.databaseUrl, `SELECT last_error FROM mail_outbox WHERE id = '${left[0]!.id}'`))[0]!.last_error).toMatch(/k\*\*\*@example\.com/);
  });
});
