import type { Config } from '../config/index.js';
import type { Logger } from '../logger.js';
import type { Mailer } from './mailer.js';

// PLACEHOLDER until the transports land (SMTP, log + outbox): logs the subject only.
export function createMailer(_config: Config, log: Logger): Mailer {
  return { send: async (mail) => log.info({ to: mail.to, subject: mail.subject }, 'email (placeholder)'), close: async () => {} };
}
