import type { Logger } from '../observability/logger.js';
import { maskEmail } from '../observability/mask-email.js';
import { mailFailed } from './failure.js';
import type { Mail, Mailer } from './mailer.js';
import { nodemailer } from './nodemailer.js';

/** Connections of the SMTP pool: the mail worker sends this many emails at once, no more (issue 38). */
export const SMTP_POOL_CONNECTIONS = 3;

export interface SmtpOptions {
  /** How long connecting, the greeting and each command may take; a dead relay fails fast instead of hanging a request. */
  timeoutMs?: number;
  maxConnections?: number;
}

/**
 * Sends through SMTP_URL (`smtp://user:pass@host:port`, or `smtps://` for implicit TLS) over a small pool of
 * reused connections. `smtp://` upgrades with STARTTLS when the relay offers it and works without it
 * (a loopback relay or test sink); query parameters of the URL override these defaults.
 */
export function createSmtpMailer(smtpUrl: string, from: string, log: Logger, options: SmtpOptions = {}): Mailer {
  const timeout = options.timeoutMs ?? 10_000;
  const maxConnections = options.maxConnections ?? SMTP_POOL_CONNECTIONS;
  const transport = nodemailer().createTransport(
    {
      url: smtpUrl,
      pool: true,
      maxConnections,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      dnsTimeout: timeout,
    },
    { from },
  );
  return {
    concurrency: maxConnections,
    async send(mail, signal) {
      try {
        // nodemailer 10 takes `signal` (not in @types/nodemailer): an abort fails the message and closes
        // the connection delivering it, so a send given up on frees its pool slot instead of holding it.
        const options = { ...addresses(mail), subject: mail.subject, text: mail.text, html: mail.html, signal };
        const info = await transport.sendMail(options as Parameters<typeof transport.sendMail>[0]);
        // The kind, not the subject: a tenant's subject may name the user (docs/email.md).
        log.info({ to: maskEmail(mail.to), kind: mail.kind, messageId: info.messageId }, 'email sent');
      } catch (error) {
        throw mailFailed(error);
      }
    },
    async close(options) {
      // nodemailer 10's close({force}) (not in @types/nodemailer) also closes connections mid-delivery.
      (transport.close as (options?: { force?: boolean }) => void)(options);
    },
  };
}

/** The envelope's addresses: the app's sender and Reply-To when it has them (else the transport's EMAIL_FROM). */
export const addresses = (mail: Mail) => ({ to: mail.to, ...(mail.from && { from: mail.from }), ...(mail.replyTo && { replyTo: mail.replyTo }) });
