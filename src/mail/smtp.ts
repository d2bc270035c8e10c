import type { Logger } from '../logger.js';
import { mailFailed } from './failure.js';
import type { Mailer } from './mailer.js';
import { nodemailer } from './nodemailer.js';

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
  const transport = nodemailer().createTransport(
    {
      url: smtpUrl,
      pool: true,
      maxConnections: options.maxConnections ?? 3,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      dnsTimeout: timeout,
    },
    { from },
  );
  return {
    async send(mail) {
      try {
        const info = await transport.sendMail({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
        log.info({ to: mail.to, subject: mail.subject, messageId: info.messageId }, 'email sent');
      } catch (error) {
        throw mailFailed(error);
      }
    },
    async close() {
      transport.close();
    },
  };
}
