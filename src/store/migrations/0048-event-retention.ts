import type { Kysely } from 'kysely';
import { createIndexConcurrently } from './steps.js';

// Issue 51: retention (EVENTS_RETENTION_DAYS, services/events/retention.ts) deletes the per-day counts of
// days past it in bounded batches; event_counts' key starts with the scope, so without this index every
// batch would read the whole table to find the old days. The events themselves are pruned in the order of
// their primary key (event ids sort as time), which needs no index of its own.
// Issue 55: built CONCURRENTLY on PostgreSQL (outside a transaction: writes to event_counts go on while it
// builds), and compatible: release aad39b5 (0049), which does not know it, ignores an index.

export const compatible = true;
export const transaction = false;

export async function up(db: Kysely<any>): Promise<void> {
  await createIndexConcurrently(db, 'event_counts_day', 'event_counts', ['day']);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('event_counts_day').ifExists().execute();
}
