import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../logger.js';
import { mailFailed } from './failure.js';
import type { Mailer } from './mailer.js';
import { nodemailer } from './nodemailer.js';

/**
 * The embedded default when SMTP_URL is unset: every email becomes an RFC 822 `.eml` file in `dir` (open it in
 * any mail client) and one info log line with the recipient, subject and plain text, so a developer reads
 * codes and links straight from the server's output. Nothing leaves the machine.
 */
export function createOutboxMailer(dir: string, from: string, log: Logger): Mailer {
  // streamTransport builds the exact message SMTP would carry, without sending it anywhere.
  let composer: ReturnType<ReturnType<typeof nodemailer>['createTransport']> | undefined;
  return {
    // Files and log lines: as many at once as the worker likes.
    concurrency: 4,
    async send(mail) {
      try {
        composer ??= nodemailer().createTransport({ streamTransport: true, buffer: true, newline: 'windows' }, { from });
        const info = await composer.sendMail({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
        await mkdir(dir, { recursive: true });
        // Sortable by time, unique without coordination between processes sharing the directory.
        const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
        await writeFile(file, info.message as Buffer, { flag: 'wx' });
        log.info({ to: mail.to, subject: mail.subject, text: mail.text, file }, 'email written to the outbox (SMTP_URL is not set)');
      } catch (error) {
        throw mailFailed(error);
      }
    },
    async close() {},
  };
}
