// An event as GET /v1/events (an app's) and GET /v1/tenants/{id}/events (a tenant's) answer it (docs/events.md),
// and the filters the log keeps in its address.
import type { Ok } from '@gatehouse/api-types';

export type EventPage = Ok<'listEvents'> | Ok<'listTenantEvents'>;
export type GatehouseEvent = EventPage['events'][number];

export const FILTERS = ['type', 'user_id', 'since', 'until'] as const;
export type Filters = Record<(typeof FILTERS)[number], string>;

/** The filters in `query` (the address), empty ones as ''. */
export const filtersOf = (query: URLSearchParams): Filters => ({
  type: query.get('type') ?? '',
  user_id: query.get('user_id') ?? '',
  since: query.get('since') ?? '',
  until: query.get('until') ?? '',
});

/** `base` with the filters (and a cursor) as its query. */
export function logHref(base: string, filters: Partial<Filters>, cursor?: string): string {
  const q = new URLSearchParams();
  for (const name of FILTERS) if (filters[name]?.trim()) q.set(name, filters[name]!.trim());
  if (cursor) q.set('cursor', cursor);
  const text = q.toString();
  return text ? `${base}?${text}` : base;
}
