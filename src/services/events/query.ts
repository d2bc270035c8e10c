import type { Deps } from '../../deps.js';
import { badRequest, notFound } from '../../errors.js';
import * as events from '../../store/repos/events.js';
import { decodePairCursor, encodePairCursor } from '../pair-cursor.js';
import { toEvent } from './record.js';
import type { Event } from './types.js';

// GET /v1/events, /v1/events/{id} and /v1/tenants/{t}/events (docs/events.md): filters, keyset paging.

export interface EventQuery {
  /** Comma list of types; `user.*` matches every type starting `user.`. */
  type?: string;
  user_id?: string;
  since?: string;
  until?: string;
  limit: number;
  cursor?: string;
}

export interface EventPage {
  events: Event[];
  next_cursor: string | null;
}

const TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*(\.\*)?$/;
const EVENT_ID = /^evt_[0-9A-Za-z]{20,60}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** `type=a.b,user.*` → exact types and prefixes; 400 for anything else. */
export function parseTypes(list: string | undefined): { types?: string[]; prefixes?: string[] } {
  if (list === undefined) return {};
  const entries = list.split(',').map((entry) => entry.trim());
  if (entries.length > 50 || entries.some((entry) => !TYPE.test(entry))) throw badRequest('type is a comma list of event types, a prefix as user.*');
  return { types: entries.filter((e) => !e.endsWith('.*')), prefixes: entries.filter((e) => e.endsWith('.*')).map((e) => e.slice(0, -1)) };
}

/** An ISO 8601 instant as stored (UTC, milliseconds); 400 when it is not one. */
export function parseInstant(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  const at = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2}))?$/.test(value) ? new Date(value) : new Date(NaN);
  if (Number.isNaN(at.getTime())) throw badRequest(`${name} is not an ISO 8601 time`);
  return at.toISOString();
}

// A cursor is the last event's (occurred_at, event_id) (services/pair-cursor.ts).
const encodeCursor = (event: Event) => encodePairCursor(event.occurred_at, event.event_id);

function decodeCursor(cursor: string): events.EventPosition {
  const [occurredAt, eventId] = decodePairCursor(cursor, [TIMESTAMP, EVENT_ID]);
  return { occurredAt, eventId };
}

async function page(deps: Pick<Deps, 'db'>, scope: events.EventScope, query: EventQuery): Promise<EventPage> {
  const filter: events.EventFilter = {
    ...parseTypes(query.type),
    since: parseInstant(query.since, 'since'),
    until: parseInstant(query.until, 'until'),
    after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
  };
  const rows = await events.listEvents(deps.db, scope, filter, query.limit + 1);
  const found = rows.slice(0, query.limit).map(toEvent);
  const last = found.at(-1);
  return { events: found, next_cursor: rows.length > query.limit && last ? encodeCursor(last) : null };
}

/** A page of the app's events, newest first (`user_id`: that user's only). */
export function listAppEvents(deps: Pick<Deps, 'db'>, appId: string, query: EventQuery): Promise<EventPage> {
  return page(deps, query.user_id === undefined ? { appId } : { appId, userId: query.user_id }, query);
}

/** A page of the tenant's own events (management actions, app_id null), newest first; `user_id` is not a filter here. */
export function listTenantEvents(deps: Pick<Deps, 'db'>, tenantId: string, query: Omit<EventQuery, 'user_id'>): Promise<EventPage> {
  return page(deps, { tenantId }, query);
}

/** The app's event, or 404 (another app's event is not found either). */
export async function getAppEvent(deps: Pick<Deps, 'db'>, appId: string, eventId: string): Promise<Event> {
  const row = EVENT_ID.test(eventId) ? await events.findEvent(deps.db, appId, eventId) : undefined;
  if (!row) throw notFound('event not found');
  return toEvent(row);
}
