import { iso } from '../../clock.js';
import { randomBase62 } from '../../crypto/ids.js';
import type { Db } from '../../store/db.js';
import type { EventDeliveries } from '../../store/repos/events.js';
import { queueEventDeliveries } from '../../store/repos/webhook-deliveries.js';
import { patternsFor } from './endpoint-rules.js';

// What an event becomes on the wire, and its deliveries queued in the event's own transaction.

/** An event as the webhook body carries it (the event record of docs/events.md). */
export interface DeliverableEvent {
  event_id: string;
  type: string;
  occurred_at: string;
  app_id: string | null;
  tenant_id: string;
  actor: { type: string; id: string | null };
  user_id: string | null;
  data: Record<string, unknown>;
  ip: string | null;
  user_agent: string | null;
}

/**
 * The Standard Webhooks body: `{type, timestamp, data}`, data holding the event's other fields with its
 * own data's fields flattened in (the event's fields win a clash, so event_id is always the event's).
 */
export function webhookBody(event: DeliverableEvent): string {
  const { type, occurred_at, data, ...fields } = event;
  return JSON.stringify({ type, timestamp: occurred_at, data: { ...data, ...fields } });
}

/** A new delivery id's random start; queueEventDeliveries appends each endpoint's id. */
export const newDeliveryIdPrefix = () => `dlv_${randomBase62(12)}_`;

/** What queues `event` for the app's endpoints with the event's own write (store/repos/events.ts). */
export function webhookDeliveriesOf(event: DeliverableEvent): EventDeliveries {
  return { payload: webhookBody(event), patterns: patternsFor(event.type), idPrefix: newDeliveryIdPrefix() };
}

/**
 * Queues `event` for every enabled endpoint of its app whose event_types select it, in one statement. Call it
 * with the transaction that writes the event (a replay: the event was written before). None for tenant events.
 */
export async function queueWebhookDeliveries(trx: Db, event: DeliverableEvent, now: Date): Promise<number> {
  if (!event.app_id) return 0;
  const { payload, patterns, idPrefix } = webhookDeliveriesOf(event);
  return queueEventDeliveries(trx, { appId: event.app_id, eventId: event.event_id, eventType: event.type, payload, patterns, now: iso(now), idPrefix });
}
