import { sql } from 'kysely';
import type { Db } from '../db.js';
import type { EventRow } from './events.js';

// Personal data erased with the user (docs/privacy.md, docs/events.md): their events stay, with the user id,
// without ip, user_agent or any email in data; the bodies of those events' webhook deliveries are written
// again from the erased events. Called in the transaction that deletes the user.

/** Forgets where the user's events came from (ip, user_agent): one UPDATE over events_app_user_time. */
export async function eraseUserEventClients(db: Db, appId: string, userId: string): Promise<void> {
  await db
    .updateTable('events')
    .set({ ip: null, user_agent: null })
    .where('app_id', '=', appId)
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('ip', 'is not', null), eb('user_agent', 'is not', null)]))
    .execute();
}

/** The user's events whose data may hold an address (an '@' in its text). */
export async function listUserEventsWithAt(db: Db, appId: string, userId: string): Promise<EventRow[]> {
  return db.selectFrom('events').selectAll().where('app_id', '=', appId).where('user_id', '=', userId).where('data', 'like', '%@%').execute();
}

/** Replaces an event's data (its erased form). */
export async function setEventData(db: Db, appId: string, eventId: string, data: string): Promise<void> {
  await db.updateTable('events').set({ data }).where('app_id', '=', appId).where('event_id', '=', eventId).execute();
}

/** The user's events that have webhook deliveries (whatever their status). */
export async function listUserEventsWithDeliveries(db: Db, appId: string, userId: string): Promise<EventRow[]> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('app_id', '=', appId)
    .where('user_id', '=', userId)
    .where((eb) => eb.exists(eb.selectFrom('webhook_deliveries as d').select(sql.lit(1).as('one')).whereRef('d.event_id', '=', 'events.event_id').where('d.app_id', '=', appId)))
    .execute();
}

/** Writes the body of every delivery of the event again. */
export async function setDeliveryPayloads(db: Db, appId: string, eventId: string, payload: string): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ payload }).where('app_id', '=', appId).where('event_id', '=', eventId).execute();
}
