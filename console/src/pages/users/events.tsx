// A user's events (GET /v1/events?user_id=, newest first), 20 a page by keyset: the answer's next_cursor
// becomes `?cursor=` in the address, so a page can be linked and reloaded.
import type { Ok } from '@gatehouse/api-types';
import { api } from '../../api.js';
import { Link } from '../../router.js';
import { useLoad } from '../../ui/load.js';
import { Problem } from '../../ui/problem.js';
import { When } from '../../ui/time.js';

const PAGE = 20;

type Event = Ok<'listEvents'>['events'][number];

/** The one field of an event's data most worth a glance (why a session ended, where a user came from). */
const detailOf = (e: Event) => ['reason', 'method', 'source', 'changed'].map((k) => e.data[k]).find((v) => v !== undefined);

export function UserEvents({ appId, userId, href, cursor, version }: { appId: string; userId: string; href: string; cursor: string; version: number }) {
  const list = useLoad(
    () => api<Ok<'listEvents'>>('GET', '/v1/events', { appId, query: { user_id: userId, limit: PAGE, cursor: cursor || undefined } }),
    [appId, userId, cursor, version],
  );
  // While the next page loads, the last one is not shown under the next page's caption.
  const events = list.loading ? undefined : list.data?.events;
  return (
    <section aria-labelledby="user-events">
      <h2 id="user-events">Events</h2>
      <Problem error={list.error} />
      {list.loading && <p class="loading">Loading events…</p>}
      {events && events.length === 0 && <p>No events on this page.</p>}
      {events && events.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>{`Events, newest first${cursor ? ' (a later page)' : ''}`}</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Type</th>
                <th scope="col">By</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => {
                const detail = detailOf(e);
                return (
                  <tr key={e.event_id}>
                    <td>
                      <When at={e.occurred_at} />
                    </td>
                    <td>{e.type}</td>
                    <td>{e.actor.type}</td>
                    <td>{detail === undefined ? '' : Array.isArray(detail) ? detail.join(', ') : String(detail)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <p class="actions">
        {cursor && <Link href={href}>Newest events</Link>}
        {!list.loading && list.data?.next_cursor && <Link href={`${href}?cursor=${encodeURIComponent(list.data.next_cursor)}`}>Older events</Link>}
      </p>
    </section>
  );
}
