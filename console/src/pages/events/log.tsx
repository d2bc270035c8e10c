// The event log of an app (GET /v1/events with X-App-Id) or of a tenant (GET /v1/tenants/{t}/events): filters
// kept in the address (type: a comma list, `user.*` a prefix; user id; since; until), keyset pages (`?cursor=`),
// each event opening to its JSON, and a Live tail (tail.ts) that prepends newer events and says how many came.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Link, navigate } from '../../router.js';
import { Check, Field, Form } from '../../ui/fields.js';
import { useLoad } from '../../ui/load.js';
import { LoadStatus } from '../../ui/pending.js';
import { useTail } from './tail.js';
import { filtersOf, logHref, type EventPage, type Filters, type GatehouseEvent } from './types.js';

const PAGE = 50;

function EventRow({ event }: { event: GatehouseEvent }) {
  const [open, setOpen] = useState(false);
  const id = `json-${event.event_id}`;
  return (
    <tr>
      <td>
        <time dateTime={event.occurred_at}>{event.occurred_at.replace('T', ' ').slice(0, 19)}</time>
      </td>
      <td>
        <code>{event.type}</code>
      </td>
      <td>{event.user_id ?? '—'}</td>
      <td>{event.actor.id ? `${event.actor.type} ${event.actor.id}` : event.actor.type}</td>
      <td>
        <button type="button" class="link" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
          {`JSON of ${event.event_id}`}
        </button>
        <pre class="json" id={id} hidden={!open}>
          {JSON.stringify(event, null, 2)}
        </pre>
      </td>
    </tr>
  );
}

function FilterForm({ base, filters, byUser }: { base: string; filters: Filters; byUser: boolean }) {
  const [draft, setDraft] = useState(filters);
  useEffect(() => setDraft(filters), [filters.type, filters.user_id, filters.since, filters.until]);
  const set = (name: keyof Filters) => (value: string) => setDraft((d) => ({ ...d, [name]: value }));
  const any = Object.values(filters).some(Boolean);
  return (
    <section aria-labelledby="event-filters">
      <h2 id="event-filters">Filters</h2>
      <Form onSubmit={() => navigate(logHref(base, draft))} label="Filter the events">
        <Field label="Types" value={draft.type} onValue={set('type')} hint="A comma list; user.* matches every type that starts with user." autoComplete="off" spellcheck={false} />
        {byUser && <Field label="User id" value={draft.user_id} onValue={set('user_id')} autoComplete="off" spellcheck={false} />}
        <Field label="Since" value={draft.since} onValue={set('since')} hint="ISO 8601 (2026-12-01 or 2026-12-01T09:30:00Z): events at or after it." autoComplete="off" />
        <Field label="Until" value={draft.until} onValue={set('until')} hint="ISO 8601: events before it." autoComplete="off" />
        <button type="submit">Apply filters</button>
        {any && (
          <button type="button" class="secondary" onClick={() => navigate(base)}>
            Clear filters
          </button>
        )}
      </Form>
    </section>
  );
}

export function EventLog({ base, path, appId, query, byUser }: { base: string; path: string; appId?: string; query: URLSearchParams; byUser: boolean }) {
  const filters = filtersOf(query);
  if (!byUser) filters.user_id = '';
  const cursor = query.get('cursor') ?? '';
  const key = logHref('', filters, cursor);
  const list = useLoad(() => api<EventPage>('GET', path, { appId, query: { type: filters.type || undefined, user_id: filters.user_id || undefined, since: filters.since || undefined, until: filters.until || undefined, cursor: cursor || undefined, limit: PAGE } }), [path, appId, key]);
  const [fresh, setFresh] = useState<GatehouseEvent[]>([]);
  const [tail, setTail] = useState(false);
  const [said, setSaid] = useState('');
  useEffect(() => (setFresh([]), setSaid('')), [key]);
  const shown = [...fresh, ...(list.data?.events ?? [])];
  useTail(
    tail && !!list.data,
    path,
    appId,
    filters,
    () => shown[0],
    (id) => shown.some((e) => e.event_id === id),
    (events) => {
      setFresh((before) => [...events, ...before]);
      setSaid(events.length === 1 ? '1 new event' : `${events.length} new events`);
    },
  );
  return (
    <>
      <FilterForm base={base} filters={filters} byUser={byUser} />
      <section aria-labelledby="event-list">
        <h2 id="event-list">Events</h2>
        <Check label="Live tail" checked={tail} onChecked={(on) => (setTail(on), setSaid(on ? 'Live tail on: new events appear at the top.' : 'Live tail off.'))} hint="Every 2.5 seconds, the events newer than the newest shown are added at the top." />
        <p class="live" aria-live="polite">
          {said}
        </p>
        <LoadStatus load={list} text="Loading events…" reloading />
        {list.data && !list.loading && (
          <>
            <div class="table-wrap">
              <table>
                <caption>{`Events${filters.type ? ` of type ${filters.type}` : ''}${filters.user_id ? ` of user ${filters.user_id}` : ''}${cursor ? ' (a later page)' : ''}`}</caption>
                <thead>
                  <tr>
                    <th scope="col">When (UTC)</th>
                    <th scope="col">Type</th>
                    <th scope="col">User</th>
                    <th scope="col">Actor</th>
                    <th scope="col">Details</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((e) => (
                    <EventRow key={e.event_id} event={e} />
                  ))}
                </tbody>
              </table>
            </div>
            {shown.length === 0 && <p>No event matches.</p>}
            <p class="actions">
              {cursor && <Link href={logHref(base, filters)}>Newest events</Link>}
              {list.data.next_cursor && <Link href={logHref(base, filters, list.data.next_cursor)}>Older events</Link>}
            </p>
          </>
        )}
      </section>
    </>
  );
}
