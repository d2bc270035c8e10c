import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../wire-formats.js';

// docs/webhooks.md: the webhook endpoint record, declared once: the routes' schemas (http/routes/webhooks/)
// and the services' type.

/** An endpoint's id as endpoints.ts makes it: wh_ and 24 base62 characters. */
export const WebhookId = Type.String({ pattern: '^wh_[A-Za-z0-9]{24}$' });

export const WebhookRecord = Type.Object(
  {
    webhook_id: WebhookId,
    url: Type.String(),
    event_types: Type.Array(Type.String()),
    description: Type.String(),
    enabled: Type.Boolean(),
    disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'why the service or the app disabled it; null while enabled' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    stats: Type.Object({
      succeeded_24h: Type.Integer({ description: 'deliveries whose last attempt in the last 24 hours succeeded' }),
      failed_24h: Type.Integer({ description: 'deliveries whose last attempt in the last 24 hours failed' }),
    }),
  },
  { title: 'Webhook', description: 'A webhook endpoint of the application' },
);

export type Webhook = Static<typeof WebhookRecord>;
