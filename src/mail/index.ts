import { join } from 'node:path';
import type { Config } from '../config/index.js';
import type { Logger } from '../observability/logger.js';
import type { Mailer } from './mailer.js';
import { createOutboxMailer } from './outbox.js';
import { createSmtpMailer } from './smtp.js';

/** The dev outbox's directory, or undefined when emails go out by SMTP. */
export const outboxDir = (config: Pick<Config, 'smtpUrl' | 'dataDir'>) => (config.smtpUrl ? undefined : join(config.dataDir, 'outbox'));

/** SMTP when SMTP_URL is set; otherwise the dev outbox (`{dataDir}/outbox/` plus the log). */
export function createMailer(config: Config, log: Logger): Mailer {
  if (config.smtpUrl) return createSmtpMailer(config.smtpUrl, config.emailFrom, log);
  return createOutboxMailer(join(config.dataDir, 'outbox'), config.emailFrom, log);
}
