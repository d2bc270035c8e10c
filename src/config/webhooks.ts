import { boolean, ConfigError, integer, read, type Env } from './env.js';

// WEBHOOK_* (docs/operations.md, "Webhooks").

export interface WebhookConfig {
  /** A delivery attempt's whole time: connecting, sending, the answer's head and up to 4 KiB of its body. */
  webhookTimeoutMs: number;
  /** Seconds before each retry; after the last one the delivery is failed. */
  webhookRetrySchedule: number[];
  /** An endpoint whose every attempt failed this long is disabled. */
  webhookDisableAfterSeconds: number;
  /** Development and tests: http and private addresses allowed. */
  webhookAllowPrivate: boolean;
}

export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

function parseSchedule(env: Env): number[] {
  const raw = read(env, 'WEBHOOK_RETRY_SCHEDULE');
  if (raw === undefined) return DEFAULT_RETRY_SCHEDULE;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 20 || parts.some((p) => !/^\d{1,6}$/.test(p))) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE', 'expected up to 20 comma-separated whole numbers of seconds, e.g. 5,300,1800');
  }
  return parts.map(Number);
}

export function parseWebhooks(env: Env): WebhookConfig {
  return {
    // At most 50 s: a delivery's lease (the timeout and 5 s) stays within a minute.
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 50_000),
    webhookRetrySchedule: parseSchedule(env),
    webhookDisableAfterSeconds: integer(env, 'WEBHOOK_DISABLE_AFTER_SECONDS', 5 * 86_400, 1, 365 * 86_400),
    webhookAllowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
  };
}
