import type { Kysely } from 'kysely';

// Issue 51: retention (EVENTS_RETENTION_DAYS, services/events/retention.ts) deletes the per-day counts of
// days past it in bounded batches; event_counts' key starts with the scope, so without this index every
// batch would read the whole table to find the old days. The events themselves are pruned in the order of
// their primary key (event ids sort as time), which needs no index of its own.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('event_counts_day').on('event_counts').columns(['day']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('event_counts_day').execute();
}
