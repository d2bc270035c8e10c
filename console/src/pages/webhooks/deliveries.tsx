// An endpoint's deliveries, newest first, 25 a page by keyset (GET /v1/webhooks/{id}/deliveries): the status
// filter (`?status=`) and the cursor (`?cursor=`) live in the address, so a page can be linked and reloaded.
// A failed delivery has a Retry button (owner, admin): attempted again now, the same webhook-id and body.
import type { Ok } from '@gatehouse/api-types';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { navigate } from '../../router.js';
import { Choice, Form } from '../../ui/fields.js';
import { useAction, useLoad } from '../../ui/load.js';
import { Pager } from '../../ui/pager.js';
import { LoadStatus } from '../../ui/pending.js';
import { Notice, Problem } from '../../ui/problem.js';
import { when, type Delivery } from './model.js';

const PAGE = 25;
const STATUSES: [string, string][] = [
  ['', 'Every status'],
  ['pending', 'Pending'],
  ['succeeded', 'Succeeded'],
  ['failed', 'Failed'],
];

function Retry({ appId, webhookId, delivery, onDone }: { appId: string; webhookId: string; delivery: Delivery; onDone: (text: string) => void }) {
  const action = useAction();
  const retry = () =>
    action.run(async () => {
      await api('POST', `/v1/webhooks/${webhookId}/deliveries/${delivery.delivery_id}/retry`, { appId });
      onDone(`Delivery ${delivery.delivery_id} is attempted again now.`);
    });
  return (
    <>
      <button type="button" class="secondary" onClick={retry} disabled={action.busy} aria-label={`Retry ${delivery.delivery_id}`}>
        Retry
      </button>
      <Problem error={action.error} />
    </>
  );
}

/** `onRefresh`: loads the endpoint again (its stats); `version` changes then, and the table loads again too. */
export function Deliveries(props: { appId: string; webhookId: string; base: string; query: URLSearchParams; writer: boolean; version: number; onRefresh: () => void }) {
  const { appId, webhookId, base, query, writer, version, onRefresh } = props;
  const status = query.get('status') ?? '';
  const cursor = query.get('cursor') ?? '';
  const [filter, setFilter] = useState(status);
  useEffect(() => setFilter(status), [status]);
  const [done, setDone] = useState<string | undefined>(undefined);
  const list = useLoad(
    () => api<Ok<'listWebhookDeliveries'>>('GET', `/v1/webhooks/${webhookId}/deliveries`, { appId, query: { limit: PAGE, status: status || undefined, cursor: cursor || undefined } }),
    [webhookId, status, cursor, version],
  );
  const href = (extra: Record<string, string>) => {
    const q = new URLSearchParams({ ...(status ? { status } : {}), ...extra });
    const text = q.toString();
    return text ? `${base}?${text}` : base;
  };
  const rows = list.data?.deliveries;
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Deliveries</h2>
      <Form onSubmit={() => navigate(filter ? `${base}?status=${filter}` : base)} label="Filter the deliveries">
        <Choice label="Status" value={filter} onValue={setFilter} options={STATUSES} />
        <button type="submit">Show</button>
        <button type="button" class="secondary" onClick={onRefresh}>
          Refresh
        </button>
      </Form>
      <Notice text={done} />
      <LoadStatus load={list} text="Loading the deliveries…" />
      {rows && (
        <div class="table-wrap">
          <table class="deliveries">
            <caption>{`Deliveries${status ? ` (${status})` : ''}${cursor ? ', a later page' : ''}: ${rows.length} shown`}</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last status code</th>
                <th scope="col">Last error</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Next attempt</th>
                {writer && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.delivery_id}>
                  <td>
                    {d.event_type}
                    <p class="hint">
                      <code>{d.delivery_id}</code>
                    </p>
                  </td>
                  <td>{d.status}</td>
                  <td>{d.attempts}</td>
                  <td>{d.last_status_code ?? '—'}</td>
                  <td class="error-text">{d.last_error ?? '—'}</td>
                  <td>{when(d.last_attempt_at)}</td>
                  <td>{when(d.next_attempt_at)}</td>
                  {writer && <td>{d.status === 'failed' && <Retry appId={appId} webhookId={webhookId} delivery={d} onDone={(text) => (setDone(text), onRefresh())} />}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {rows && rows.length === 0 && <p>{status ? `No ${status} delivery.` : 'No delivery yet.'}</p>}
      <Pager cursor={cursor} next={list.data?.next_cursor} href={(c) => href(c ? { cursor: c } : {})} />
    </section>
  );
}
