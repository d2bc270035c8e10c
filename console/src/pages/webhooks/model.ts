// The webhook endpoint and delivery records as /v1/webhooks answers them (docs/webhooks.md), their addresses
// in the console, and the small conversions the pages share.
import type { Ok } from '@gatehouse/api-types';

export type Webhook = Ok<'getWebhook'>;
export type Delivery = Ok<'listWebhookDeliveries'>['deliveries'][number];

export const webhooksHref = (tenantId: string, appId: string) => `/t/${tenantId}/apps/${appId}/webhooks`;
export const webhookHref = (tenantId: string, appId: string, webhookId: string) => `${webhooksHref(tenantId, appId)}/${webhookId}`;

/** "user.*, session.created" or one per line → the list the API takes (empty entries dropped). */
export const parseTypes = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((t) => t.trim())
    .filter(Boolean);

export const TYPES_HINT = 'Event types or prefixes, separated by commas or new lines: user.created, user.*, or * for every type but signin.failed.';

/** The 24-hour success rate as a person reads it: "100% (3 of 3)", or "no deliveries" when none settled. */
export function successRate(stats: Webhook['stats']): string {
  const total = stats.succeeded_24h + stats.failed_24h;
  if (total === 0) return 'no deliveries in 24 h';
  return `${Math.round((100 * stats.succeeded_24h) / total)}% (${stats.succeeded_24h} of ${total})`;
}

/** A timestamp, short: "2026-12-02 15:04:05 UTC". */
export const when = (iso: string | null): string => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '—');
