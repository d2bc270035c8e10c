import type { Db } from '../../store/db.js';
import * as erasure from '../../store/repos/event-erasure.js';
import { webhookBody } from '../webhooks/queue.js';
import { toEvent } from './record.js';

// A deleted user's personal data leaves their events (contract 17, docs/privacy.md): ip, user_agent and every
// email in data are erased (the events stay, with the user id), and the bodies of those events' webhook
// deliveries are written again from the erased events, so a pending retry sends no address either.

/** Every string of `value` holding an '@' (an address) becomes null; the rest stays. */
export function withoutEmails(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('@') ? null : value;
  if (Array.isArray(value)) return value.map(withoutEmails);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutEmails(v)]));
  return value;
}

/** Erases the user's personal data from their events and deliveries, in the deletion's transaction. */
export async function eraseUserEvents(trx: Db, appId: string, userId: string): Promise<void> {
  await erasure.eraseUserEventClients(trx, appId, userId);
  for (const row of await erasure.listUserEventsWithAt(trx, appId, userId)) {
    await erasure.setEventData(trx, appId, row.event_id, JSON.stringify(withoutEmails(JSON.parse(row.data))));
  }
  for (const row of await erasure.listUserEventsWithDeliveries(trx, appId, userId)) {
    await erasure.setDeliveryPayloads(trx, appId, row.event_id, webhookBody(toEvent(row)));
  }
}
