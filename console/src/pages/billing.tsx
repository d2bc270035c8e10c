// /console/t/:tenant/billing: the tenant's balance and this month's usage (GET /v1/billing), a top-up
// (owners, admins: pages/billing/topup.tsx) and the ledger, newest first, by keyset (`?cursor=` in the
// address). Billing is per tenant; the API reaches it through any app of the tenant (X-App-Id).
import type { Ok } from '@gatehouse/api-types';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { canWrite } from '../store.js';
import { useLoad } from '../ui/load.js';
import { Pager } from '../ui/pager.js';
import { Pending } from '../ui/pending.js';
import { TopUp } from './billing/topup.js';

const PAGE = 25;

const usd = (n: number) => `${n.toFixed(2)} USD`;
const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MiB` : `${(n / 1024 ** 3).toFixed(2)} GiB`);

function LedgerTable({ appId, base, cursor }: { appId: string; base: string; cursor: string }) {
  const ledger = useLoad(() => api<Ok<'listTransactions'>>('GET', '/v1/billing/transactions', { appId, query: { limit: PAGE, cursor: cursor || undefined } }), [appId, cursor]);
  if (ledger.error || !ledger.data) return <Pending load={ledger} text="Loading the ledger…" />;
  const rows = ledger.data.transactions;
  return (
    <section aria-labelledby="ledger">
      <h2 id="ledger">Ledger</h2>
      {rows.length === 0 ? (
        <p>{cursor ? 'No older rows.' : 'No transaction yet.'}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption>{cursor ? 'Transactions, newest first (a later page)' : 'Transactions, newest first'}</caption>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Type</th>
                <th scope="col">Description</th>
                <th scope="col">Amount</th>
                <th scope="col">Balance after</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.transaction_id}>
                  <td>
                    <time dateTime={r.created_at}>{r.created_at.slice(0, 10)}</time>
                  </td>
                  <td>{r.type}</td>
                  <td>{r.description}</td>
                  <td>{usd(r.amount_usd)}</td>
                  <td>{usd(r.balance_after_usd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager base={base} cursor={cursor} next={ledger.data.next_cursor} later="Older transactions" />
    </section>
  );
}

function Account({ appId, writer, base, cursor }: { appId: string; writer: boolean; base: string; cursor: string }) {
  const overview = useLoad(() => api<Ok<'getBilling'>>('GET', '/v1/billing', { appId }), [appId]);
  if (overview.error || !overview.data) return <Pending load={overview} text="Loading the balance…" />;
  const o = overview.data;
  const u = o.usage;
  return (
    <>
      <section aria-labelledby="balance">
        <h2 id="balance">Balance</h2>
        <p class="balance">
          <strong>{usd(o.balance_usd)}</strong>
          {o.paused ? ' · paused: every app of this tenant answers 402 until the balance is back to zero or above' : ''}
        </p>
        <div class="table-wrap">
          <table>
            <caption>{`Usage from ${u.period_start.slice(0, 10)} to ${u.period_end.slice(0, 10)}`}</caption>
            <tbody>
              <tr><th scope="row">Monthly active users</th><td>{u.monthly_active_users}</td></tr>
              <tr><th scope="row">Table storage</th><td>{bytes(u.table_storage_bytes)}</td></tr>
              <tr><th scope="row">Object storage</th><td>{bytes(u.object_storage_bytes)}</td></tr>
              <tr><th scope="row">Estimated charges</th><td>{usd(u.estimated_charges_usd)}</td></tr>
            </tbody>
          </table>
        </div>
      </section>
      {writer && <TopUp appId={appId} chains={o.payment_methods[0]?.chains ?? []} onConfirmed={overview.reload} />}
      <LedgerTable appId={appId} base={base} cursor={cursor} />
    </>
  );
}

export function BillingPage({ tenant, query }: PageProps) {
  const t = tenant!;
  const apps = useLoad(() => api<Ok<'listTenantApps'>>('GET', `/v1/tenants/${t.tenant_id}/apps`), [t.tenant_id]);
  if (apps.error || !apps.data) return <Pending load={apps} text="Loading…" />;
  const first = apps.data.apps[0];
  if (!first) return <p>{`Billing is reached through an app of the tenant: ${t.name} has none yet. Create one on the Apps page.`}</p>;
  return <Account appId={first.app_id} writer={canWrite(t.role)} base={`/t/${t.tenant_id}/billing`} cursor={query.get('cursor') ?? ''} />;
}
