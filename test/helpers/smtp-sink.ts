import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** Envelope recipients (RCPT TO), lower-cased. */
  to: string[];
  from: string;
  /** The Reply-To header's address(es), '' when the message has none. */
  replyTo: string;
  subject: string;
  text: string;
  html: string;
  /** The user name the client authenticated with, when it sent AUTH. */
  user?: string;
  /** The raw RFC 822 message as received. */
  raw: string;
}

export interface SmtpSink {
  /** `smtp://127.0.0.1:PORT`, ready for SMTP_URL. */
  url: string;
  port: number;
  /** Every message accepted so far, oldest first. */
  messages: ReceivedMail[];
  /** When true, the next RCPT TO is refused with a 5xx (then it resets). */
  failNext: boolean;
  /** When true, every RCPT TO is refused with a 5xx until set back. */
  refuseAll: boolean;
  /**
   * The newest message for `to` (case-insensitive), or its `count`-th message (1-based) when `count` is given;
   * polls until it arrives or `timeoutMs` (default 5000) passes.
   */
  waitFor(to: string, options?: { timeoutMs?: number; count?: number }): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** A refusal that quotes the recipient, as relays do ("550 5.1.1 <alice@example.com>: Recipient address rejected"). */
function refusal(address: string): Error {
  const error = new Error(`<${address}>: Recipient address rejected (the test sink refuses this message)`) as Error & { responseCode: number };
  error.responseCode = 550;
  return error;
}

function addressText(value: AddressObject | AddressObject[] | undefined): string {
  if (!value) return '';
  // "Name <address>" without the quotes mailparser's own text form adds.
  return (Array.isArray(value) ? value : [value])
    .flatMap((a) => a.value)
    .map((v) => (v.name ? `${v.name} <${v.address}>` : (v.address ?? '')))
    .join(', ');
}

/**
 * A real SMTP server on a free loopback port (no TLS; AUTH optional, any credentials accepted and the user name recorded), for tests that need to read
 * what the service actually sent: codes and links come out of the parsed messages.
 */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const sink = { failNext: false, refuseAll: false };

  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // A pooled client may still hold a connection when the test ends: do not wait the default 30 s for it.
    closeTimeout: 500,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username ?? 'anonymous' }),
    onRcptTo: (address, _session, callback) => {
      if (sink.refuseAll || sink.failNext) {
        sink.failNext = false;
        return callback(refusal(address.address));
      }
      callback();
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw)
          .then((parsed) => {
            messages.push({
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              from: addressText(parsed.from),
              replyTo: addressText(parsed.replyTo),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              user: typeof session.user === 'string' ? session.user : undefined,
              raw: raw.toString('utf8'),
            });
            callback();
          })
          .catch(callback);
      });
    },
  });
  server.on('error', () => {
    // a client dropping its connection is not the test's concern
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return Object.assign(sink, {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    async waitFor(to: string, options: { timeoutMs?: number; count?: number } = {}) {
      const wanted = to.toLowerCase();
      const deadline = Date.now() + (options.timeoutMs ?? 5_000);
      for (;;) {
        const mine = messages.filter((m) => m.to.includes(wanted));
        const found = options.count === undefined ? mine.at(-1) : mine[options.count - 1];
        if (found) return found;
        if (Date.now() > deadline) {
          throw new Error(`no email #${options.count ?? 'latest'} for ${to} within the timeout; the sink holds ${messages.length} message(s)`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** The 6-digit code: a line of the plain-text part that is exactly six digits. */
export function extractCode(text: string): string {
  const match = /^[ \t]*(\d{6})[ \t]*\r?$/m.exec(text);
  if (!match) throw new Error(`no 6-digit code line in:\n${text}`);
  return match[1];
}

/** The full verification / magic link in the plain-text part. */
export function extractLink(text: string): string {
  const match = /https?:\/\/[^\s<>"]+\/v1\/email\/verify\?token=[^\s<>"]+/.exec(text);
  if (!match) throw new Error(`no /v1/email/verify?token= link in:\n${text}`);
  return match[0];
}
