import { sql, type Kysely } from 'kysely';

// Events (docs/events.md): one row per change in a user's life or management action, written in the
// transaction of the change (services/events/). event_id is "evt_" + the occurrence time in base36
// milliseconds (9 characters, digits and lower case only, so it sorts as time on either database and
// collation) + 16 random base62 characters: the primary key grows at its end, and the retention prune walks
// it in order without an index on occurred_at. Timestamps are ISO 8601 text, data is JSON text.
// Pages read newest first by keyset over (occurred_at, event_id) within an app, an app's user, or a tenant's
// own events (app_id null: management actions, which outlive the app they name).
// event_counts keeps per-day counts by type for GET /v1/events/stats, upserted with each event; scope_id is
// the app id, or the tenant id for tenant events; 16 slots (the event id's last character) so concurrent
// writers of one app and type do not all wait on one counter row on PostgreSQL.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('user_id', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('events_app_time').on('events').columns(['app_id', 'occurred_at', 'event_id']).where(sql.ref('app_id'), 'is not', null).execute();
  await db.schema.createIndex('events_app_user_time').on('events').columns(['app_id', 'user_id', 'occurred_at', 'event_id']).where(sql.ref('user_id'), 'is not', null).execute();
  await db.schema.createIndex('events_tenant_time').on('events').columns(['tenant_id', 'occurred_at', 'event_id']).where(sql.ref('app_id'), 'is', null).execute();
  await db.schema
    .createTable('event_counts')
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('slot', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_counts_pk', ['scope_id', 'day', 'type', 'slot'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('event_counts').execute();
  await db.schema.dropTable('events').execute();
}
