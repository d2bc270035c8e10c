import { sql } from 'kysely';
import type { Db } from '../db.js';
import { rowLimit } from '../limit.js';

// Retention of the audit log (EVENTS_RETENTION_DAYS, services/events/retention.ts): the oldest events and
// the per-day counts of old days, deleted in bounded batches, each one short statement on an index range.

/**
 * Deletes up to `limit` events whose id is below `floorId` (eventIdFloor of the cut-off: ids sort as
 * time, so this is the start of the primary key) and the finished webhook deliveries of those events
 * (webhook_deliveries_event); a delivery still queued keeps its own body and stays until it finishes.
 * Call in a transaction. Answers the events and deliveries deleted.
 */
export async function deleteEventBatchBefore(db: Db, floorId: string, limit: number): Promise<{ events: number; deliveries: number }> {
  const rows = await db.selectFrom('events').select('event_id').where('event_id', '<', floorId).orderBy('event_id').limit(rowLimit(limit)).execute();
  if (rows.length === 0) return { events: 0, deliveries: 0 };
  const ids = rows.map((row) => row.event_id);
  const deliveries = await db.deleteFrom('webhook_deliveries').where('event_id', 'in', ids).where('next_attempt_at', 'is', null).executeTakeFirst();
  const events = await db.deleteFrom('events').where('event_id', 'in', ids).executeTakeFirst();
  return { events: Number(events.numDeletedRows), deliveries: Number(deliveries.numDeletedRows) };
}

/** Deletes up to `limit` counter rows of days before `day` (YYYY-MM-DD; index event_counts_day); answers how many. */
export async function deleteEventCountsBefore(db: Db, day: string, limit: number): Promise<number> {
  const result = await sql`delete from event_counts where (scope_id, day, type, slot) in (
    select scope_id, day, type, slot from event_counts where day < ${day} order by day limit ${rowLimit(limit)})`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
