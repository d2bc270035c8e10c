import type { Selectable } from 'kysely';

/** An app's webhook endpoint (migration 0033). Secrets are sealed with MASTER_KEY, bound to the row. */
export interface WebhookEndpointsTable {
  id: string;
  app_id: string;
  url: string;
  /** The event_types list as JSON text (the queue matches through webhook_endpoint_types). */
  event_types: string;
  description: string;
  enabled: number;
  disabled_reason: string | null;
  secret_sealed: string;
  /** The secret a rotation replaced; it signs beside the new one until previous_expires_at. */
  previous_secret_sealed: string | null;
  previous_expires_at: string | null;
  /** The first failed attempt since the last success: WEBHOOK_DISABLE_AFTER_SECONDS after it, the endpoint is disabled. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;

/** One entry of an endpoint's event_types: a type, a prefix (`user.*`) or `*`. */
export interface WebhookEndpointTypesTable {
  app_id: string;
  pattern: string;
  endpoint_id: string;
}

/** How many endpoints an app has (the cap is checked by the write that raises it). */
export interface WebhookEndpointCountsTable {
  app_id: string;
  endpoints: number;
}

/** An event queued for one endpoint; `payload` is the body sent on every attempt. */
export interface WebhookDeliveriesTable {
  id: string;
  app_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  created_at: string;
  /** Null once the delivery succeeded or failed for good. */
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  lease_holder: string | null;
  lease_until: string | null;
}

export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
