import { Type } from '@sinclair/typebox';
import { WebhookRecord } from '../../../services/webhooks/records.js';
import { SafeInteger, Timestamp } from '../../schemas.js';

// docs/webhooks.md: the bodies of the webhook routes and the delivery records (the endpoint record is the
// service's: services/webhooks/records.ts).

const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 100,
  description: 'event types, prefixes such as "user.*", or "*" (every type but signin.failed)',
});

export const DeliveryId = Type.String({ minLength: 1, maxLength: 100, pattern: '^dlv_[A-Za-z0-9_]+$' });

export const CreatedWebhookBody = Type.Intersect([WebhookRecord, Type.Object({ secret: Type.String({ description: 'whsec_ + base64 of 32 bytes: shown in this answer only' }) })], { title: 'CreatedWebhook' });

export const CreateBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'https; no private, loopback, link-local or metadata address' }),
  event_types: Type.Optional(EventTypes),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  enabled: Type.Optional(Type.Boolean()),
});

export const PatchBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    enabled: Type.Optional(Type.Boolean({ description: 'true clears disabled_reason' })),
  },
  { minProperties: 1 },
);

export const RotatedBody = Type.Object({
  secret: Type.String({ description: 'the new secret, shown in this answer only' }),
  previous_expires_at: Timestamp,
});

export const DeliveryBody = Type.Object({
  delivery_id: DeliveryId,
  event_id: Type.String({ description: 'the webhook-id header of every attempt' }),
  event_type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  next_attempt_at: Type.Union([Timestamp, Type.Null()]),
  last_attempt_at: Type.Union([Timestamp, Type.Null()]),
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String({ description: 'at most 1 KiB of the answer or the failure' }), Type.Null()]),
}, { title: 'WebhookDelivery' });

export const DeliveriesQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')])),
  limit: SafeInteger({ minimum: 1, maximum: 200, default: 50 }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 400, description: 'next_cursor of the previous page' })),
});

export const DeliveryList = Type.Object({
  deliveries: Type.Array(DeliveryBody),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
}, { title: 'WebhookDeliveryList' });

export const ReplayBody = Type.Object({ since: Type.String({ minLength: 1, maxLength: 40, description: 'ISO 8601: every matching event since then is queued again (at most 50,000, the newest)' }) });
