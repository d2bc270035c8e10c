import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { getAppEvent, listAppEvents } from '../../services/events/query.js';
import { appEventStats, MAX_STATS_DAYS } from '../../services/events/stats.js';
import type { Guards } from '../plugins/guards.js';
import { errors, SafeInteger, Timestamp } from '../schemas.js';
import type { Http } from '../types.js';
import { routesOf } from '../route-security.js';

// docs/events.md: the app's audit log (Secret). The schemas are shared with GET /v1/tenants/{t}/events.

export const EventBody = Type.Object(
  {
    event_id: Type.String({ description: '"evt_" + 25 characters; sorts as time' }),
    type: Type.String({ description: 'user.created, session.created, ... (docs/events.md)' }),
    occurred_at: Timestamp,
    tenant_id: Type.String(),
    app_id: Type.Union([Type.String(), Type.Null()], { description: "null for the tenant's own events" }),
    actor: Type.Object({
      type: Type.Union(['user', 'secret_key', 'member', 'token', 'operator', 'system'].map((t) => Type.Literal(t))),
      id: Type.Union([Type.String(), Type.Null()]),
    }),
    user_id: Type.Union([Type.String(), Type.Null()]),
    data: Type.Record(Type.String(), Type.Unknown(), { description: "the type's own fields; never a password, code, token, hash or secret" }),
    ip: Type.Union([Type.String(), Type.Null()], { description: 'the client IP as the rate limits see it; null when no request caused it' }),
    user_agent: Type.Union([Type.String(), Type.Null()], { description: 'at most 512 characters' }),
  },
  { title: 'Event', description: 'One change in the life of a user, or one management action' },
);

/** The filters and paging of an event list (the tenant's list takes the same but `user_id`). */
export const EventListQuery = Type.Object({
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'comma list of types; user.* matches every type starting user.' })),
  user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  since: Type.Optional(Type.String({ minLength: 10, maxLength: 40, description: 'ISO 8601: events at or after it' })),
  until: Type.Optional(Type.String({ minLength: 10, maxLength: 40, description: 'ISO 8601: events before it' })),
  limit: SafeInteger({ minimum: 1, maximum: 200, default: 50 }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page' })),
});

export const EventList = Type.Object({
  events: Type.Array(EventBody),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'where the next page starts; null on the last page' }),
}, { title: 'EventList' });

export const EventStatsQuery = Type.Object({
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'comma list of types; user.* matches every type starting user.' })),
  since: Type.Optional(Type.String({ minLength: 10, maxLength: 40, description: "ISO 8601: the first day counted is this time's (UTC); default: 29 days before until's" })),
  until: Type.Optional(Type.String({ minLength: 10, maxLength: 40, description: "ISO 8601: the last day counted is this time's (UTC); default: now" })),
});

export const EventStatsBody = Type.Object({
  days: Type.Array(
    Type.Object({
      date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
      counts: Type.Record(Type.String(), Type.Integer({ minimum: 1 }), { description: 'events of the day by type; {} when none' }),
    }),
    { description: `every day of the range, oldest first; at most ${MAX_STATS_DAYS}` },
  ),
});

export function eventRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'events');

  app.get(
    '/v1/events',
    route.secret({ operationId: 'listEvents', summary: "A page of the app's events, newest first", querystring: EventListQuery, response: { 200: EventList, ...errors(400, 401, 403) } }),
    async (request) => listAppEvents(deps, request.application!.id, request.query),
  );

  app.get(
    '/v1/events/stats',
    route.secret({ operationId: 'getEventStats', summary: "The app's events counted per day and type, for charts", querystring: EventStatsQuery, response: { 200: EventStatsBody, ...errors(400, 401, 403) } }),
    async (request) => appEventStats(deps, request.application!.id, request.query),
  );

  app.get(
    '/v1/events/:event_id',
    route.secret({ operationId: 'getEvent', summary: 'One event of the app', params: Type.Object({ event_id: Type.String({ minLength: 1, maxLength: 100 }) }), response: { 200: EventBody, ...errors(400, 401, 403, 404) } }),
    async (request) => getAppEvent(deps, request.application!.id, request.params.event_id),
  );
}
