import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { ApiError } from '../../src/errors.js';
import { createLogger, type Logger } from '../../src/observability/logger.js';
import { createMailer } from '../../src/mail/index.js';
import { createSmtpMailer } from '../../src/mail/smtp.js';
import { renderTemplate } from '../../src/mail/render.js';
import { shippedTemplate } from '../../src/mail/shipped.js';
import { freePort } from '../helpers/server.js';
import { extractCode, extractLink, startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

const LINK = 'http://127.0.0.1:8080/v1/email/verify?token=el_Zm9vYmFy-_123';

/** A shipped email, rendered as services/mail/compose.ts renders it. */
function verificationEmail(to: string, kind: 'verify_email' | 'magic_link', values: Record<string, string>) {
  return { to, kind, ...renderTemplate(shippedTemplate(kind, 'en')!, { app_name: 'Acme <Shop>', locale: 'en', to, code_valid_for: '10 minutes', link_valid_for: '24 hours', ...values }) };
}

function email(to: string) {
  return verificationEmail(to, 'verify_email', { code: '042042', link: LINK });
}

/** A real logger whose JSON lines the test can read. */
function capturedLogger(): { log: Logger; lines: () => Array<Record<string, unknown>> } {
  let out = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      out += chunk;
      done();
    },
  });
  return { log: createLogger('info', sink), lines: () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the send to fail');
}

describe('4 email over SMTP (SMTP_URL set)', () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(async () => {
    await sink.close();
  });

  it('delivers the text and HTML parts; code and link are readable from the plain text', async () => {
    const { log } = capturedLogger();
    const mailer = createMailer(loadConfig({ SMTP_URL: sink.url, EMAIL_FROM: 'Acme Auth <auth@acme.test>' }), log);
    try {
      await mailer.send(email('Ada@Example.com'));
      const received = await sink.waitFor('ada@example.com');
      expect(received.from).toBe('Acme Auth <auth@acme.test>');
      expect(received.subject).toBe('Verify your email for Acme <Shop>');
      expect(extractCode(received.text)).toBe('042042');
      expect(extractLink(received.text)).toBe(LINK);
      expect(received.html).toContain(`<a href="${LINK}">`);
      expect(received.html).toContain('Acme &lt;Shop&gt;');
    } finally {
      await mailer.close();
    }
  });

  it('reuses the pooled connection for several emails and waitFor finds each by position', async () => {
    const { log } = capturedLogger();
    const mailer = createMailer(loadConfig({ SMTP_URL: sink.url }), log);
    try {
      for (const code of ['111111', '222222', '333333']) {
        await mailer.send(verificationEmail('pool@example.com', 'magic_link', { code }));
      }
      expect(extractCode((await sink.waitFor('pool@example.com', { count: 2 })).text)).toBe('222222');
      expect(extractCode((await sink.waitFor('POOL@example.com')).text)).toBe('333333');
    } finally {
      await mailer.close();
    }
  });

  it('credentials in SMTP_URL are used to authenticate', async () => {
    const { log } = capturedLogger();
    const mailer = createMailer(loadConfig({ SMTP_URL: `smtp://relay-user:s3cret%40@127.0.0.1:${sink.port}` }), log);
    try {
      await mailer.send(email('auth@example.com'));
      expect((await sink.waitFor('auth@example.com')).user).toBe('relay-user');
    } finally {
      await mailer.close();
    }
  });

  it('a relay that refuses the message makes send() reject with 503 mail_failed', async () => {
    const { log } = capturedLogger();
    const mailer = createMailer(loadConfig({ SMTP_URL: sink.url }), log);
    sink.failNext = true;
    try {
      const error = await rejection(mailer.send(email('refused@example.com')));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 503, code: 'mail_failed' });
      expect(String((error as ApiError).cause)).toMatch(/550/);
      // The refusal was for that message only: the next one goes through on the same mailer.
      await mailer.send(email('after@example.com'));
      await sink.waitFor('after@example.com');
    } finally {
      await mailer.close();
    }
  });

  it('a closed port makes send() reject with 503 mail_failed, fast', async () => {
    const { log } = capturedLogger();
    const mailer = createMailer(loadConfig({ SMTP_URL: `smtp://127.0.0.1:${await freePort()}` }), log);
    try {
      const started = Date.now();
      const error = await rejection(mailer.send(email('nobody@example.com')));
      expect(error).toMatchObject({ status: 503, code: 'mail_failed', detail: 'could not send the email; try again later' });
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await mailer.close();
    }
  });

  it('a relay that accepts the connection and never answers times out instead of hanging', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const { log } = capturedLogger();
    const mailer = createSmtpMailer(`smtp://127.0.0.1:${port}`, 'x@example.com', log, { timeoutMs: 300 });
    try {
      const started = Date.now();
      const error = await rejection(mailer.send(email('silent@example.com')));
      expect(error).toMatchObject({ status: 503, code: 'mail_failed' });
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await mailer.close();
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('1 email without SMTP_URL: the dev outbox and the log', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-outbox-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a parseable .eml with both parts to {dataDir}/outbox/ and logs the masked recipient, subject and text', async () => {
    const { log, lines } = capturedLogger();
    const mailer = createMailer({ ...loadConfig({}), dataDir: join(dir, 'data') }, log);
    await mailer.send(email('dev@example.com'));
    await mailer.close();

    const outbox = join(dir, 'data', 'outbox');
    const files = readdirSync(outbox);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
    const parsed = await simpleParser(readFileSync(join(outbox, files[0])));
    expect(parsed.from?.value[0]).toMatchObject({ name: 'Gatehouse', address: 'no-reply@localhost' });
    expect((Array.isArray(parsed.to) ? parsed.to[0] : parsed.to)?.value[0].address).toBe('dev@example.com');
    expect(parsed.subject).toBe('Verify your email for Acme <Shop>');
    expect(extractCode(parsed.text ?? '')).toBe('042042');
    expect(extractLink(parsed.text ?? '')).toBe(LINK);
    expect(parsed.html).toContain(`<a href="${LINK}">`);

    // The log names the recipient masked (docs/privacy.md); the code and link are there to copy.
    const line = lines().find((l) => l.to === 'd***@example.com');
    expect(line).toMatchObject({ level: 30, subject: 'Verify your email for Acme <Shop>' });
    expect(lines().some((l) => JSON.stringify(l).includes('dev@example.com'))).toBe(false);
    expect(extractCode(String(line?.text))).toBe('042042');
    expect(extractLink(String(line?.text))).toBe(LINK);
  });

  it('an outbox that cannot be written makes send() reject with 503 mail_failed', async () => {
    const { log } = capturedLogger();
    // A regular file where the data directory should be: mkdir fails.
    const blocked = join(dir, 'not-a-dir');
    rmSync(blocked, { force: true });
    writeFileSync(blocked, 'x');
    const mailer = createMailer({ ...loadConfig({}), dataDir: blocked }, log);
    const error = await rejection(mailer.send(email('dev@example.com')));
    expect(error).toMatchObject({ status: 503, code: 'mail_failed' });
  });
});
