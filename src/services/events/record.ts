import { randomBytes } from 'node:crypto';
import type { Db } from '../../store/db.js';
import { insertEvent, type EventDeliveries, type EventRow } from '../../store/repos/events.js';
import { webhookDeliveriesOf } from '../webhooks/queue.js';
import type { Event, NewEvent } from './types.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * "evt_" + the time in base36 milliseconds (9 characters: digits and lower case, which every collation
 * orders alike, so ids sort as time) + 16 random base62 characters (95 bits; one randomBytes call, bytes
 * of 248 and above skipped so each character is uniform).
 */
export function newEventId(at: Date): string {
  let out = `evt_${at.getTime().toString(36).padStart(9, '0')}`;
  while (out.length < 29) {
    for (const byte of randomBytes(24)) {
      if (byte < 248 && out.length < 29) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** The event id at the start of `at`'s millisecond: every id of an event before `at` sorts below it. */
export const eventIdFloor = (at: Date) => `evt_${at.getTime().toString(36).padStart(9, '0')}`;

/**
 * Records the event in `trx`, the transaction of the change it records (so the event commits with the
 * change or not at all), adds it to the day's count and queues its webhook deliveries; one statement on
 * PostgreSQL. Returns its id.
 */
export async function recordEvent(trx: Db, event: NewEvent, now: Date = new Date()): Promise<string> {
  const { row, deliveries } = prepareEvent(event, now);
  // Queued for the app's webhook endpoints in the same statement (PostgreSQL): an app without endpoints
  // pays one index probe that finds nothing (docs/webhooks.md).
  await insertEvent(trx, row, deliveries);
  return row.event_id;
}

/** An event's row and (an app's event) its webhook body, for a write that makes them part of its own statement (a session's opening). */
export function prepareEvent(event: NewEvent, now: Date): { row: EventRow; deliveries: EventDeliveries | undefined } {
  const eventId = newEventId(now);
  const row: EventRow = {
    event_id: eventId,
    tenant_id: event.tenantId,
    app_id: event.appId,
    type: event.type,
    occurred_at: now.toISOString(),
    actor_type: event.actor.type,
    actor_id: event.actor.id,
    user_id: event.userId,
    data: JSON.stringify(event.data),
    ip: event.ip,
    user_agent: event.userAgent === null ? null : event.userAgent.slice(0, 512),
  };
  return { row, deliveries: event.appId === null ? undefined : webhookDeliveriesOf(toEvent(row)) };
}

/** A stored event as the API answers it. */
export function toEvent(row: EventRow): Event {
  return {
    event_id: row.event_id,
    type: row.type,
    occurred_at: row.occurred_at,
    tenant_id: row.tenant_id,
    app_id: row.app_id,
    actor: { type: row.actor_type as Event['actor']['type'], id: row.actor_id },
    user_id: row.user_id,
    data: JSON.parse(row.data) as Record<string, unknown>,
    ip: row.ip,
    user_agent: row.user_agent,
  };
}
