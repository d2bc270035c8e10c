import { sql, type Expression, type ExpressionBuilder, type QueryCreator, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../db.js';
import { rowLimit } from '../limit.js';
import type { Database, WebhookDeliveryRow, WebhookEndpointTypesTable } from '../types.js';
import { anyDue, claimDue, releaseLease, type LeaseClaim, type QueueTable } from './leases.js';

// The webhook delivery queue (migration 0033): one row per (event, endpoint), leased to one node per attempt.

export interface QueuedEvent {
  appId: string;
  eventId: string;
  eventType: string;
  /** The body every attempt sends. */
  payload: string;
  /** The event_types entries that select the event: its type, its prefixes (`user.*`), and `*` unless it is signin.failed. */
  patterns: string[];
  now: string;
  /** Random text the delivery ids start with; each row appends its endpoint's id, so the ids are unique. */
  idPrefix: string;
}

/**
 * Queues the event for every enabled endpoint of the app that subscribes to it, in one INSERT ... SELECT:
 * call it in the transaction that writes the event. An app without endpoints costs one indexed probe that
 * finds nothing. Answers how many deliveries were queued.
 */
export async function queueEventDeliveries(db: Db, event: QueuedEvent): Promise<number> {
  const result = await queueDeliveriesQuery(db, event).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n);
}

/** queueEventDeliveries' statement (compiled and run synchronously in SQLite's session-opening transaction). */
export function queueDeliveriesQuery(db: Db, event: QueuedEvent) {
  const rows = deliveryRows(db, { ...event, id: sql<string>`${event.idPrefix} || w.id` }, (eb) => eb('t.pattern', 'in', event.patterns));
  return db.insertInto('webhook_deliveries').columns(DELIVERY_COLUMNS).expression(rows);
}

/**
 * The same INSERT ... SELECT as a data-modifying CTE for PostgreSQL's single-statement event write
 * (store/repos/events.ts): `patterns` is one space-separated text parameter, so the statement's text is the
 * same for every type and is prepared once. Values are the named markers of compiledQuery.
 */
export function deliveriesCte(qc: QueryCreator<Database>, v: { appId: string; eventId: string; type: string; occurredAt: string; payload: string; patterns: string; idPrefix: string }, gate?: string) {
  const event = { appId: v.appId, eventId: v.eventId, eventType: v.type, payload: v.payload, now: v.occurredAt, id: sql<string>`${v.idPrefix}::text || w.id` };
  const rows = deliveryRows(qc, event, () => sql<boolean>`t.pattern = any(string_to_array(${v.patterns}::text, ' '))`)
    // `gate`: another CTE of the statement (the session it opens); no row there, nothing queued.
    .$if(gate !== undefined, (q) => q.where(sql<boolean>`exists (select 1 from ${sql.table(gate!)})`));
  return qc.insertInto('webhook_deliveries').columns(DELIVERY_COLUMNS).expression(rows);
}

const DELIVERY_COLUMNS = ['id', 'app_id', 'endpoint_id', 'event_id', 'event_type', 'payload', 'status', 'attempts', 'created_at', 'next_attempt_at'] as const;

/**
 * An event's new deliveries (DELIVERY_COLUMNS), pending and due at once: one per enabled endpoint `w` of the
 * app with an event_types entry `t` that `subscribes` accepts. `id` is a row's id, the prefix and w.id as the
 * dialect joins them; the constants are SQL literals.
 */
function deliveryRows(
  qc: QueryCreator<Database>,
  event: { appId: string; eventId: string; eventType: string; payload: string; now: string; id: RawBuilder<string> },
  subscribes: (eb: ExpressionBuilder<Database & { t: WebhookEndpointTypesTable }, 't'>) => Expression<SqlBool>,
) {
  return qc
    .selectFrom('webhook_endpoints as w')
    .select((eb) => [
      event.id.as('id'),
      'w.app_id',
      'w.id',
      eb.val(event.eventId).as('event_id'),
      eb.val(event.eventType).as('event_type'),
      eb.val(event.payload).as('payload'),
      sql.lit('pending').as('status'),
      sql.lit(0).as('attempts'),
      eb.val(event.now).as('created_at'),
      eb.val(event.now).as('next_attempt_at'),
    ])
    .where('w.app_id', '=', event.appId)
    .where('w.enabled', '=', sql.lit(1))
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('webhook_endpoint_types as t')
          .select('t.endpoint_id')
          .where('t.app_id', '=', event.appId)
          .where(subscribes)
          .whereRef('t.endpoint_id', '=', 'w.id'),
      ),
    );
}

/** Queues deliveries made in the service (a test event, a replay). */
export async function insertDeliveries(db: Db, rows: WebhookDeliveryRow[]): Promise<void> {
  if (rows.length) await db.insertInto('webhook_deliveries').values(rows).execute();
}

/** The delivery queue as a leased queue: a delivery is due once its next attempt's time has come (null once finished). */
const QUEUE: QueueTable<'webhook_deliveries'> = { table: 'webhook_deliveries', due: (eb, now) => eb('next_attempt_at', '<=', now) };

/** Whether any delivery is due and free: a read, so an idle worker's poll takes no write lock (anyDue). */
export const anyDueDelivery = (db: Db, now: string): Promise<boolean> => anyDue(db, QUEUE, now);

/**
 * Leases up to `limit` due deliveries to `holder` until `leaseUntil`; each goes to one node only (claimDue).
 * On SQLite the caller runs this in a write transaction.
 */
export const claimDueDeliveries = (db: Db, options: LeaseClaim): Promise<WebhookDeliveryRow[]> => claimDue(db, QUEUE, options);

export interface AttemptOutcome {
  attempts: number;
  now: string;
  statusCode: number | null;
  error: string | null;
  /** When to try again; null with status `succeeded` or `failed`. */
  nextAttemptAt: string | null;
  status: WebhookDeliveryRow['status'];
}

/** Records an attempt made by `holder` and releases the lease; false when the lease was lost meanwhile. */
export async function recordAttempt(db: Db, id: string, holder: string, outcome: AttemptOutcome): Promise<boolean> {
  const result = await releaseLease(db, 'webhook_deliveries', id, holder)
    .set({
      status: outcome.status,
      attempts: outcome.attempts,
      last_attempt_at: outcome.now,
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
      next_attempt_at: outcome.nextAttemptAt,
    })
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Gives the lease back without counting an attempt (cut by shutdown): due again at once. */
export async function releaseDelivery(db: Db, id: string, holder: string): Promise<void> {
  await releaseLease(db, 'webhook_deliveries', id, holder).execute();
}

/** Makes the endpoint's delivery due now (POST .../retry): a failed or succeeded one is pending again. */
export async function retryDelivery(db: Db, appId: string, endpointId: string, deliveryId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now })
    .where('app_id', '=', appId)
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The endpoint's deliveries, newest first, after the keyset `after` (created_at, id). */
export async function listDeliveries(
  db: Db,
  appId: string,
  endpointId: string,
  options: { status?: WebhookDeliveryRow['status']; limit: number; after?: { createdAt: string; id: string } },
): Promise<WebhookDeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('app_id', '=', appId).where('endpoint_id', '=', endpointId);
  if (options.status) query = query.where('status', '=', options.status);
  const after = options.after;
  if (after) query = query.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(rowLimit(options.limit)).execute();
}

/** Per endpoint of the app: deliveries whose last attempt since `since` succeeded, and those whose last attempt failed. */
export async function countRecentOutcomes(db: Db, appId: string, endpointIds: string[], since: string): Promise<Map<string, { succeeded: number; failed: number }>> {
  const counts = new Map<string, { succeeded: number; failed: number }>();
  if (endpointIds.length === 0) return counts;
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => ['endpoint_id', 'status', eb.fn.countAll<number>().as('n')])
    .where('app_id', '=', appId)
    .where('endpoint_id', 'in', endpointIds)
    .where('last_attempt_at', '>=', since)
    .where('attempts', '>', 0)
    .groupBy(['endpoint_id', 'status'])
    .execute();
  for (const row of rows) {
    const entry = counts.get(row.endpoint_id) ?? { succeeded: 0, failed: 0 };
    if (row.status === 'succeeded') entry.succeeded += Number(row.n);
    else entry.failed += Number(row.n);
    counts.set(row.endpoint_id, entry);
  }
  return counts;
}

/** Deletes up to `limit` finished deliveries created before `before` (retention); answers how many. */
export async function pruneFinishedDeliveries(db: Db, before: string, limit: number): Promise<number> {
  const old = db.selectFrom('webhook_deliveries').select('id').where('created_at', '<', before).where('next_attempt_at', 'is', null).orderBy('created_at').limit(rowLimit(limit));
  const result = await db.deleteFrom('webhook_deliveries').where('id', 'in', old).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deliveries still queued (due or retried later; index webhook_deliveries_due), for the queue-depth gauge. */
export async function countQueuedDeliveries(db: Db): Promise<number> {
  const row = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<string | number>().as('n')).where('next_attempt_at', 'is not', null).executeTakeFirstOrThrow();
  return Number(row.n);
}
