// The log's "Live tail": every 2.5 s, the events newer than the newest shown (the same filters, `since` the
// newest one's time; the ones already shown dropped by id), handed to `onNew`, newest first.
import { useEffect, useRef } from 'preact/hooks';
import { api } from '../../api.js';
import type { EventPage, Filters, GatehouseEvent } from './types.js';

export const TAIL_MS = 2500;

export function useTail(on: boolean, path: string, appId: string | undefined, filters: Filters, newest: () => GatehouseEvent | undefined, known: (id: string) => boolean, onNew: (events: GatehouseEvent[]) => void): void {
  const started = useRef(new Date().toISOString());
  const latest = useRef({ newest, known, onNew });
  latest.current = { newest, known, onNew };
  useEffect(() => {
    if (!on) return;
    started.current = new Date().toISOString();
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      const { newest: top } = latest.current;
      const since = top()?.occurred_at ?? (filters.since || started.current);
      try {
        const page = await api<EventPage>('GET', path, { appId, query: { type: filters.type || undefined, user_id: filters.user_id || undefined, since, limit: 200 } });
        const fresh = page.events.filter((e) => !latest.current.known(e.event_id));
        if (live && fresh.length > 0) latest.current.onNew(fresh);
      } catch {
        // A failed poll is tried again at the next tick; the page's own list shows lasting refusals.
      }
      if (live) timer = setTimeout(poll, TAIL_MS);
    };
    timer = setTimeout(poll, TAIL_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [on, path, appId, filters.type, filters.user_id, filters.since]);
}
