import { sql } from 'kysely';
import type { Db } from '../db.js';

// The per-day counts of events by type (event_counts, migration 0032), written with each event by
// events.ts and read here for GET /v1/events/stats (docs/events.md). A read is one range of the primary
// key (scope_id, day, type, slot): at most days × types × 16 rows, whatever the number of events.

export interface DayTypeCount {
  day: string;
  type: string;
  count: number;
}

export interface CountFilter {
  /** First and last day (YYYY-MM-DD, UTC), both included. */
  fromDay: string;
  toDay: string;
  /** Exact types. */
  types?: string[];
  /** Type prefixes ending in '.', from `user.*`. */
  prefixes?: string[];
}

/**
 * The scope's (an app's id, or a tenant's for its own events) counts per day and type in the range,
 * the 16 slots of each summed; oldest day first, a day or type with no event is absent.
 */
export async function countEventsByDay(db: Db, scopeId: string, filter: CountFilter): Promise<DayTypeCount[]> {
  let query = db
    .selectFrom('event_counts')
    .select(['day', 'type', sql<string | number>`sum(count)`.as('count')])
    .where('scope_id', '=', scopeId)
    .where('day', '>=', filter.fromDay)
    .where('day', '<=', filter.toDay);
  const { types = [], prefixes = [] } = filter;
  if (types.length || prefixes.length) {
    // As listEvents: a prefix's own % _ \ are escaped, ESCAPE names the escape character on SQLite too.
    const startsWith = (prefix: string) => sql<boolean>`${sql.ref('type')} LIKE ${`${prefix.replace(/[%_\\]/g, '\\$&')}%`} ESCAPE '\\'`;
    query = query.where((eb) => eb.or([...(types.length ? [eb('type', 'in', types)] : []), ...prefixes.map(startsWith)]));
  }
  const rows = await query.groupBy(['day', 'type']).orderBy('day').orderBy('type').execute();
  // PostgreSQL answers sum(bigint) as numeric text.
  return rows.map((row) => ({ day: row.day, type: row.type, count: Number(row.count) }));
}
