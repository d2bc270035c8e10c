import { PostgresAdapter, sql, type QueryCreator } from 'kysely';
import { compiledQuery } from '../compiled.js';
import type { Db, RunNow } from '../db.js';
import { rowLimit } from '../limit.js';
import type { Database, EventsTable } from '../types.js';
import { deliveriesCte, queueDeliveriesQuery, type QueuedEvent } from './webhook-deliveries.js';

// Events and their per-day counts (migration 0032, docs/events.md). Every read is scoped by app (or by
// tenant for the tenant's own events, app_id null) and is one range of an index, newest first.

export type EventRow = EventsTable;

/** Which of the 16 counter rows of (scope, day, type) an event adds to: from its id's random last character. */
export const counterSlot = (eventId: string) => (eventId.charCodeAt(eventId.length - 1) % 16).toString(16);

const EVENT_VALUES = ['eventId', 'tenantId', 'appId', 'type', 'occurredAt', 'actorType', 'actorId', 'userId', 'data', 'ip', 'userAgent'] as const;
const COUNT_VALUES = ['scopeId', 'day', 'slot'] as const;

const eventValues = (v: Record<(typeof EVENT_VALUES)[number], string>) => ({
  event_id: v.eventId,
  tenant_id: v.tenantId,
  app_id: v.appId,
  type: v.type,
  occurred_at: v.occurredAt,
  actor_type: v.actorType,
  actor_id: v.actorId,
  user_id: v.userId,
  data: v.data,
  ip: v.ip,
  user_agent: v.userAgent,
});

const countUpsert = (db: QueryCreator<Database>, v: Record<string, string>) =>
  db
    .insertInto('event_counts')
    .values({ scope_id: v.scopeId, day: v.day, type: v.type, slot: v.slot, count: 1 })
    .onConflict((oc) => oc.columns(['scope_id', 'day', 'type', 'slot']).doUpdateSet((eb) => ({ count: eb('event_counts.count', '+', 1) })));

// PostgreSQL: the event and its count in ONE statement (a data-modifying CTE runs to completion whether
// or not the outer statement reads it), so the event costs a sign-in no second round trip. SQLite runs
// in process: two prepared statements cost no round trip at all.
const insertWithCount = compiledQuery([...EVENT_VALUES, ...COUNT_VALUES], (db, v) => countUpsert(db.with('e', (qc) => qc.insertInto('events').values(eventValues(v))) as unknown as QueryCreator<Database>, v));
// With the event's webhook deliveries (migration 0033) queued by a third CTE: still one statement.
const DELIVERY_VALUES = ['payload', 'patterns', 'idPrefix'] as const;
const insertWithCountAndDeliveries = compiledQuery([...EVENT_VALUES, ...COUNT_VALUES, ...DELIVERY_VALUES], (db, v) =>
  countUpsert(
    db
      .with('e', (qc) => qc.insertInto('events').values(eventValues(v)))
      .with('d', (qc) => deliveriesCte(qc as unknown as QueryCreator<Database>, { appId: v.appId, eventId: v.eventId, type: v.type, occurredAt: v.occurredAt, payload: v.payload, patterns: v.patterns, idPrefix: v.idPrefix })) as unknown as QueryCreator<Database>,
    v,
  ),
);
const insertOnly = compiledQuery(EVENT_VALUES, (db, v) => db.insertInto('events').values(eventValues(v)));
const countOnly = compiledQuery(['scopeId', 'day', 'type', 'slot'], (db, v) => countUpsert(db, v));

const QUEUE_VALUES = ['appId', 'eventId', 'eventType', 'payload', 'now', 'idPrefix'] as const;
type QueueStatement = ReturnType<typeof queueStatement>;
const queueStatement = (patterns: number) => {
  const names = Array.from({ length: patterns }, (_, i) => `p${i}`);
  // The INSERT ... SELECT of webhook-deliveries.ts itself, over compiledQuery's markers: one text, two callers.
  return compiledQuery([...QUEUE_VALUES, ...names], (db, v) =>
    queueDeliveriesQuery(db, { appId: v.appId, eventId: v.eventId, eventType: v.eventType, payload: v.payload, now: v.now, idPrefix: v.idPrefix, patterns: names.map((name) => v[name as keyof typeof v]) }),
  );
};
/** By the number of patterns (an event type's depth), each compiled once. */
const queueStatements = new Map<number, QueueStatement>();

/**
 * queueEventDeliveries (webhook-deliveries.ts) for the event's own write on SQLite, its statement compiled
 * once (Kysely builds none per event); it answers nothing.
 */
async function queueEventDeliveriesNow(db: Db, event: QueuedEvent): Promise<void> {
  const { statement, values } = queueStatementFor(event);
  await statement(db, values);
}

/** The compiled queueing statement of the event's number of patterns, and its values. */
function queueStatementFor(event: QueuedEvent): { statement: QueueStatement; values: Record<string, string> } {
  let statement = queueStatements.get(event.patterns.length);
  if (!statement) queueStatements.set(event.patterns.length, (statement = queueStatement(event.patterns.length)));
  const values: Record<string, string> = { appId: event.appId, eventId: event.eventId, eventType: event.eventType, payload: event.payload, now: event.now, idPrefix: event.idPrefix };
  event.patterns.forEach((pattern, i) => (values[`p${i}`] = pattern));
  return { statement, values };
}

/** What queues an app event's webhook deliveries with it: the body, the event_types entries that select it, the ids' start. */
export interface EventDeliveries {
  payload: string;
  patterns: string[];
  idPrefix: string;
}

/**
 * Inserts the event and adds it to its scope's count of the day, in the caller's transaction; with
 * `deliveries`, also queues it for the app's webhook endpoints that subscribe to it (one statement on
 * PostgreSQL, one more in-process statement on SQLite).
 */
export async function insertEvent(db: Db, row: EventRow, deliveries?: EventDeliveries): Promise<void> {
  const values = {
    eventId: row.event_id,
    tenantId: row.tenant_id,
    appId: row.app_id,
    type: row.type,
    occurredAt: row.occurred_at,
    actorType: row.actor_type,
    actorId: row.actor_id,
    userId: row.user_id,
    data: row.data,
    ip: row.ip,
    userAgent: row.user_agent,
  };
  const count = { scopeId: row.app_id ?? row.tenant_id, day: row.occurred_at.slice(0, 10), type: row.type, slot: counterSlot(row.event_id) };
  const queue = deliveries && row.app_id !== null ? deliveries : undefined;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    if (queue) await insertWithCountAndDeliveries(db, { ...values, ...count, payload: queue.payload, patterns: queue.patterns.join(' '), idPrefix: queue.idPrefix });
    else await insertWithCount(db, { ...values, ...count });
    return;
  }
  await insertOnly(db, values);
  await countOnly(db, count);
  if (queue) {
    await queueEventDeliveriesNow(db, { appId: row.app_id!, eventId: row.event_id, eventType: row.type, payload: queue.payload, patterns: queue.patterns, now: row.occurred_at, idPrefix: queue.idPrefix });
  }
}

/** An event's values as one statement's named parameters (gatedEventCtes), all text. */
export const GATED_EVENT_NAMES = ['evId', 'evTenantId', 'evAppId', 'evType', 'evAt', 'evActorType', 'evActorId', 'evUserId', 'evData', 'evIp', 'evUserAgent', 'evDay', 'evSlot', 'evPayload', 'evPatterns', 'evIdPrefix'] as const;
export type GatedEventValues = Record<(typeof GATED_EVENT_NAMES)[number], string | null>;

/** The named values of an app's event and its deliveries for gatedEventCtes. */
export function gatedEventValues(row: EventRow, deliveries: EventDeliveries): GatedEventValues {
  return {
    evId: row.event_id,
    evTenantId: row.tenant_id,
    evAppId: row.app_id,
    evType: row.type,
    evAt: row.occurred_at,
    evActorType: row.actor_type,
    evActorId: row.actor_id,
    evUserId: row.user_id,
    evData: row.data,
    evIp: row.ip,
    evUserAgent: row.user_agent,
    evDay: row.occurred_at.slice(0, 10),
    evSlot: counterSlot(row.event_id),
    evPayload: deliveries.payload,
    evPatterns: deliveries.patterns.join(' '),
    evIdPrefix: deliveries.idPrefix,
  };
}

/**
 * PostgreSQL: an app's event, its day's count and its webhook deliveries as three data-modifying CTEs of a
 * bigger statement, each writing only if the CTE `gate` of that statement has a row (the session it opens):
 * the change and its event in one statement, one round trip. `v` holds compiledQuery's markers.
 */
export function gatedEventCtes(v: Record<(typeof GATED_EVENT_NAMES)[number], string>, gate: string) {
  const text = (value: string) => sql<string>`cast(${value} as text)`;
  const from = (qc: QueryCreator<Database>) => qc.selectFrom(sql.table(gate).as('g') as unknown as 'events');
  return {
    event: (qc: QueryCreator<Database>) =>
      qc
        .insertInto('events')
        .columns(['event_id', 'tenant_id', 'app_id', 'type', 'occurred_at', 'actor_type', 'actor_id', 'user_id', 'data', 'ip', 'user_agent'])
        .expression(
          from(qc).select([
            text(v.evId).as('event_id'),
            text(v.evTenantId).as('tenant_id'),
            text(v.evAppId).as('app_id'),
            text(v.evType).as('type'),
            text(v.evAt).as('occurred_at'),
            text(v.evActorType).as('actor_type'),
            text(v.evActorId).as('actor_id'),
            text(v.evUserId).as('user_id'),
            text(v.evData).as('data'),
            text(v.evIp).as('ip'),
            text(v.evUserAgent).as('user_agent'),
          ]),
        )
        .returning('event_id'),
    count: (qc: QueryCreator<Database>) =>
      qc
        .insertInto('event_counts')
        .columns(['scope_id', 'day', 'type', 'slot', 'count'])
        .expression(from(qc).select([text(v.evAppId).as('scope_id'), text(v.evDay).as('day'), text(v.evType).as('type'), text(v.evSlot).as('slot'), sql<number>`1`.as('count')]))
        .onConflict((oc) => oc.columns(['scope_id', 'day', 'type', 'slot']).doUpdateSet((eb) => ({ count: eb('event_counts.count', '+', 1) })))
        .returning('scope_id'),
    deliveries: (qc: QueryCreator<Database>) =>
      deliveriesCte(qc, { appId: v.evAppId, eventId: v.evId, type: v.evType, occurredAt: v.evAt, payload: v.evPayload, patterns: v.evPatterns, idPrefix: v.evIdPrefix }, gate).returning('id'),
  };
}

/** SQLite: the app's event, its count and its deliveries, run synchronously inside sqliteTransaction's work (a const: SQLite's only, as markActiveNow). */
export const insertEventNow = (run: RunNow, db: Db, row: EventRow, deliveries: EventDeliveries): void => {
  const values = { eventId: row.event_id, tenantId: row.tenant_id, appId: row.app_id, type: row.type, occurredAt: row.occurred_at, actorType: row.actor_type, actorId: row.actor_id, userId: row.user_id, data: row.data, ip: row.ip, userAgent: row.user_agent };
  run(insertOnly.statement(db, values));
  run(countOnly.statement(db, { scopeId: row.app_id!, day: row.occurred_at.slice(0, 10), type: row.type, slot: counterSlot(row.event_id) }));
  const { statement, values: queued } = queueStatementFor({ appId: row.app_id!, eventId: row.event_id, eventType: row.type, payload: deliveries.payload, patterns: deliveries.patterns, now: row.occurred_at, idPrefix: deliveries.idPrefix });
  run(statement.statement(db, queued));
};

/** A place in the newest-first order: the events after it are older, or as old with a smaller id. */
export interface EventPosition {
  occurredAt: string;
  eventId: string;
}

/** Whose events a page reads: an app's (optionally one user's), or a tenant's own (app_id null). */
export type EventScope = { appId: string; userId?: string } | { tenantId: string };

export interface EventFilter {
  /** Exact types; */
  types?: string[];
  /** Type prefixes ending in '.', from `user.*`. */
  prefixes?: string[];
  /** occurred_at >= since (ISO 8601 UTC). */
  since?: string;
  /** occurred_at < until. */
  until?: string;
  after?: EventPosition;
}

/**
 * Up to `limit` events of the scope, newest first, after `after`: one range of events_app_time,
 * events_app_user_time or events_tenant_time (the type filter is checked on the rows of that range).
 */
export async function listEvents(db: Db, scope: EventScope, filter: EventFilter, limit: number): Promise<EventRow[]> {
  return eventsPageQuery(db, scope, filter, limit).execute();
}

/** listEvents' statement (exported for the test of its plan). */
export function eventsPageQuery(db: Db, scope: EventScope, filter: EventFilter, limit: number) {
  let query = db.selectFrom('events').selectAll();
  if ('tenantId' in scope) query = query.where('tenant_id', '=', scope.tenantId).where('app_id', 'is', null);
  else {
    query = query.where('app_id', '=', scope.appId);
    if (scope.userId !== undefined) query = query.where('user_id', '=', scope.userId);
  }
  if (filter.since !== undefined) query = query.where('occurred_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('occurred_at', '<', filter.until);
  const { types = [], prefixes = [] } = filter;
  if (types.length || prefixes.length) {
    // A prefix's own % _ \ are escaped; ESCAPE names the escape character, which SQLite's LIKE has none of
    // by default (PostgreSQL's is already \): without it `oauth_provider.*` matched nothing on SQLite.
    const startsWith = (prefix: string) => sql<boolean>`${sql.ref('type')} LIKE ${`${prefix.replace(/[%_\\]/g, '\\$&')}%`} ESCAPE '\\'`;
    query = query.where((eb) => eb.or([...(types.length ? [eb('type', 'in', types)] : []), ...prefixes.map(startsWith)]));
  }
  if (filter.after) {
    const { occurredAt, eventId } = filter.after;
    query = query.where((eb) => eb(eb.refTuple('occurred_at', 'event_id'), '<', eb.tuple(occurredAt, eventId)));
  }
  return query.orderBy('occurred_at', 'desc').orderBy('event_id', 'desc').limit(rowLimit(limit));
}

/** The app's event, or undefined (another app's event is not found either). */
export async function findEvent(db: Db, appId: string, eventId: string): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('app_id', '=', appId).where('event_id', '=', eventId).executeTakeFirst();
}
