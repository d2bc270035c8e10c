import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../observability/logger.js';
import { maskEmail } from '../observability/mask-email.js';
import { mailFailed } from './failure.js';
import type { Mailer } from './mailer.js';
import { nodemailer } from './nodemailer.js';
import { addresses } from './smtp.js';

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
        const info = await composer.sendMail({ ...addresses(mail), subject: mail.subject, text: mail.text, html: mail.html });
        await mkdir(dir, { recursive: true });
        // Sortable by time, unique without coordination between processes sharing the directory.
        const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
        await writeFile(file, info.message as Buffer, { flag: 'wx' });
        log.info({ to: maskEmail(mail.to), subject: mail.subject, text: mail.text, file }, 'email written to the outbox (SMTP_URL is not set)');
      } catch (error) {
        throw mailFailed(error);
      }
    },
    async close() {},
  };
}

/**
 * Removes the outbox's `.eml` files written before `before` (their codes and links are dead by then, and the
 * addresses in them need not stay on disk: docs/privacy.md). Returns how many; a missing directory is 0.
 */
export async function pruneOutbox(dir: string, before: Date): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.endsWith('.eml')) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info && info.mtime < before) {
      await rm(path, { force: true });
      removed++;
    }
  }
  return removed;
}
