import { ConfigError, read, url, type Env } from './env.js';
import type { DatabaseConfig } from './stores.js';

// SMTP_URL and EMAIL_FROM.

/**
 * SMTP_URL=log: chooses the log outbox on purpose; PostgreSQL means production, where codes and links
 * must never end up in logs by accident.
 */
export function parseSmtpUrl(env: Env, database: DatabaseConfig): string | undefined {
  const smtpToLog = read(env, 'SMTP_URL')?.toLowerCase() === 'log:';
  const smtpUrl = smtpToLog ? undefined : url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  if (database.kind === 'postgres' && !smtpUrl && !smtpToLog) {
    throw new ConfigError(
      'SMTP_URL',
      'is required with PostgreSQL (smtp://user:pass@host:port), so codes and links never go to the log by accident; set SMTP_URL=log: to write emails to the log on purpose',
    );
  }
  return smtpUrl;
}

export function parseEmailFrom(env: Env): string {
  const raw = read(env, 'EMAIL_FROM') ?? 'Gatehouse <no-reply@localhost>';
  if (!/^(?:[^<>@]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/.test(raw)) {
    throw new ConfigError('EMAIL_FROM', 'must be an address, e.g. "Gatehouse <no-reply@example.com>"');
  }
  return raw;
}
