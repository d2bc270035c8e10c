import { iso } from '../../clock.js';
import { randomBase62 } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import * as deliveries from '../../store/repos/webhook-deliveries.js';
import type { WebhookDeliveryRow } from '../../store/types.js';
import { decodePairCursor, encodePairCursor } from '../pair-cursor.js';
import { findWebhookRow } from './endpoints.js';
import { webhookBody } from './queue.js';

export type DeliveryDeps = Pick<Deps, 'db' | 'clock'>;

export interface Delivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  status: WebhookDeliveryRow['status'];
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
}

const toDelivery = (row: WebhookDeliveryRow): Delivery => ({
  delivery_id: row.id,
  event_id: row.event_id,
  event_type: row.event_type,
  status: row.status,
  attempts: Number(row.attempts),
  next_attempt_at: row.next_attempt_at,
  last_attempt_at: row.last_attempt_at,
  last_status_code: row.last_status_code === null ? null : Number(row.last_status_code),
  last_error: row.last_error,
});

export const newEventId = () => `evt_${randomBase62(24)}`;

/** A row queued for one endpoint, due now. */
export function pendingDelivery(appId: string, endpointId: string, event: { event_id: string; type: string }, payload: string, now: string): WebhookDeliveryRow {
  return {
    id: `dlv_${randomBase62(12)}_${endpointId}`,
    app_id: appId,
    endpoint_id: endpointId,
    event_id: event.event_id,
    event_type: event.type,
    payload,
    status: 'pending',
    attempts: 0,
    created_at: now,
    next_attempt_at: now,
    last_attempt_at: null,
    last_status_code: null,
    last_error: null,
    lease_holder: null,
    lease_until: null,
  };
}

/** Queues a `webhook.test` event to this endpoint alone (it is not an event of the log). */
export async function sendTestEvent(deps: DeliveryDeps, app: Pick<Application, 'id' | 'tenantId'>, webhookId: string, actor: { type: string; id: string | null }): Promise<string> {
  await findWebhookRow(deps, app.id, webhookId);
  const now = iso(deps.clock.now());
  const event = {
    event_id: newEventId(),
    type: 'webhook.test',
    occurred_at: now,
    app_id: app.id,
    tenant_id: app.tenantId,
    actor,
    user_id: null,
    data: { webhook_id: webhookId },
    ip: null,
    user_agent: null,
  };
  const row = pendingDelivery(app.id, webhookId, event, webhookBody(event), now);
  await deliveries.insertDeliveries(deps.db, [row]);
  return row.id;
}

// A cursor is the last delivery's (created_at, id) (services/pair-cursor.ts).
const encodeCursor = (row: WebhookDeliveryRow) => encodePairCursor(row.created_at, row.id);

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id] = decodePairCursor(cursor);
  return { createdAt, id };
}

/** The endpoint's deliveries, newest first, `limit` a page (keyset). 404 for another app's endpoint. */
export async function listWebhookDeliveries(
  deps: DeliveryDeps,
  appId: string,
  webhookId: string,
  query: { status?: WebhookDeliveryRow['status']; limit: number; cursor?: string },
): Promise<{ deliveries: Delivery[]; next_cursor: string | null }> {
  await findWebhookRow(deps, appId, webhookId);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const rows = await deliveries.listDeliveries(deps.db, appId, webhookId, { status: query.status, limit: query.limit + 1, after });
  const page = rows.slice(0, query.limit);
  return { deliveries: page.map(toDelivery), next_cursor: rows.length > query.limit ? encodeCursor(page.at(-1)!) : null };
}

/** Makes a delivery due now (a failed one is pending again, with the same webhook-id and body). */
export async function retryWebhookDelivery(deps: DeliveryDeps, appId: string, webhookId: string, deliveryId: string): Promise<void> {
  if (!(await deliveries.retryDelivery(deps.db, appId, webhookId, deliveryId, iso(deps.clock.now())))) throw notFound('delivery not found');
}
