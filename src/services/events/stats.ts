import type { Deps } from '../../deps.js';
import { badRequest } from '../../errors.js';
import { countEventsByDay } from '../../store/repos/event-counts.js';
import { parseInstant, parseTypes } from './query.js';

// GET /v1/events/stats (docs/events.md): the app's events counted per UTC day and type, read from the
// counters written with each event (event_counts), so a year costs what a day does.

export interface StatsQuery {
  type?: string;
  since?: string;
  until?: string;
}

export interface EventStats {
  days: { date: string; counts: Record<string, number> }[];
}

/** The longest range one answer covers: a year of a chart, a leap year's included. */
export const MAX_STATS_DAYS = 366;
/** Without `since`: the 30 days that end with `until`'s. */
const DEFAULT_DAYS = 30;

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Every day from `since`'s through `until`'s (UTC, both included; `until` defaults to now), oldest first,
 * each with its counts by type (`{}` for a day with none); `type` filters as GET /v1/events' does.
 */
export async function appEventStats(deps: Pick<Deps, 'db' | 'clock'>, appId: string, query: StatsQuery): Promise<EventStats> {
  const filter = parseTypes(query.type);
  const until = Date.parse(parseInstant(query.until, 'until') ?? deps.clock.now().toISOString());
  const sinceText = parseInstant(query.since, 'since');
  const lastDay = Date.parse(dayOf(until));
  const firstDay = sinceText === undefined ? lastDay - (DEFAULT_DAYS - 1) * DAY_MS : Date.parse(sinceText.slice(0, 10));
  if (firstDay > lastDay) throw badRequest('since is after until');
  const length = (lastDay - firstDay) / DAY_MS + 1;
  if (length > MAX_STATS_DAYS) throw badRequest(`since and until are at most ${MAX_STATS_DAYS} days apart`);
  const rows = await countEventsByDay(deps.db, appId, { ...filter, fromDay: dayOf(firstDay), toDay: dayOf(lastDay) });
  const days = Array.from({ length }, (_, i) => ({ date: dayOf(firstDay + i * DAY_MS), counts: {} as Record<string, number> }));
  const byDate = new Map(days.map((day) => [day.date, day.counts]));
  for (const row of rows) byDate.get(row.day)![row.type] = row.count;
  return { days };
}
