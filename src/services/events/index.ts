// The events core (docs/events.md): record an event in the transaction of its change, read them back.
export { eventIdFloor, newEventId, recordEvent, toEvent } from './record.js';
export { appEventStats, MAX_STATS_DAYS, type EventStats, type StatsQuery } from './stats.js';
export { getAppEvent, listAppEvents, listTenantEvents, parseInstant, parseTypes, type EventPage, type EventQuery } from './query.js';
export { eventOf, OPERATOR_CONTEXT, SYSTEM_CONTEXT, userContext, type Actor, type ActorType, type Event, type EventContext, type NewEvent } from './types.js';
