import type { Kysely } from 'kysely';

// Issue 51: webhook endpoints and their delivery queue (docs/webhooks.md).
// - webhook_endpoints: an app's endpoints. secret_sealed is the whsec_ secret sealed with MASTER_KEY, bound
//   to the row; previous_secret_sealed and previous_expires_at keep the secret a rotation replaced, which signs
//   beside the new one until then. failing_since: the first failed attempt since the last success (auto-disable).
// - webhook_endpoint_types: each endpoint's event_types entries, one row each ('*', 'user.*', 'session.created'),
//   so the deliveries of an event are queued by one indexed INSERT ... SELECT in the event's transaction.
// - webhook_endpoint_counts: how many endpoints an app has; the insert that raises it past the cap (20) finds no
//   row to update, so the cap and the endpoints change in the same write on both databases.
// - webhook_deliveries: one row per (event, endpoint) queued, with the body as it is sent on every attempt,
//   leased to one node at a time (lease_holder, lease_until) like the mail outbox.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_reason', 'text')
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_expires_at', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_app').on('webhook_endpoints').columns(['app_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_endpoint_types')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('pattern', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_endpoint_types_pk', ['app_id', 'pattern', 'endpoint_id'])
    .execute();
  await db.schema.createIndex('webhook_endpoint_types_endpoint').on('webhook_endpoint_types').column('endpoint_id').execute();

  await db.schema
    .createTable('webhook_endpoint_counts')
    .addColumn('app_id', 'text', (c) => c.primaryKey())
    .addColumn('endpoints', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    // pending, succeeded or failed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('lease_holder', 'text')
    .addColumn('lease_until', 'text')
    .execute();
  // The workers' claim: due pending rows in time order (next_attempt_at is null once finished).
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['next_attempt_at']).execute();
  // An endpoint's deliveries, newest first, by status or not (GET .../deliveries, its stats).
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'created_at', 'id']).execute();
  // The clean-up: finished deliveries past their retention, oldest first.
  await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').columns(['created_at']).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint_status').on('webhook_deliveries').columns(['endpoint_id', 'status', 'last_attempt_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoint_counts').execute();
  await db.schema.dropTable('webhook_endpoint_types').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
