// /console/t/:tenant/apps/:app/activity: the app's last 30 days from GET /v1/events/stats (per-day counts
// kept as events are written): sign-ups (user.created) and sign-ins (session.created), failed sign-ins
// (signin.failed), sessions started as the active-user measure (the stats count events, not distinct users; the
// tenant's billing figure of monthly active users beside it), and each webhook's success rate over 24 hours.
import type { Ok } from '@gatehouse/api-types';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { useLoad } from '../ui/load.js';
import { Pending } from '../ui/pending.js';
import { Problem } from '../ui/problem.js';
import { BarChart } from './activity/chart.js';

type Webhook = Ok<'listWebhooks'>['webhooks'][number];

const TYPES = 'user.created,session.created,signin.failed';
const rate = (w: Webhook) => (w.stats.succeeded_24h + w.stats.failed_24h === 0 ? 0 : (100 * w.stats.succeeded_24h) / (w.stats.succeeded_24h + w.stats.failed_24h));

function Webhooks({ appId }: { appId: string }) {
  const hooks = useLoad(() => api<Ok<'listWebhooks'>>('GET', '/v1/webhooks', { appId }), [appId]);
  const list = hooks.data?.webhooks ?? [];
  return (
    <section aria-labelledby="chart-webhooks">
      <h2 id="chart-webhooks">Webhook success rate</h2>
      <Problem error={hooks.error} />
      {hooks.data && list.length === 0 && <p>The app has no webhook endpoint.</p>}
      {list.length > 0 && (
        <>
          <BarChart
            title="Success rate of the last 24 hours by endpoint (succeeded of succeeded and failed deliveries)"
            labelHeader="Endpoint"
            labels={list.map((w) => w.url)}
            series={[{ name: 'success rate', values: list.map(rate) }]}
            max={100}
            format={(n) => `${n.toFixed(1)} %`}
            unit={list.map((w) => `${w.url} ${w.stats.succeeded_24h + w.stats.failed_24h === 0 ? 'no delivery' : `${rate(w).toFixed(1)} %`}`).join(', ')}
            columns={[
              { name: 'succeeded', values: list.map((w) => w.stats.succeeded_24h) },
              { name: 'failed', values: list.map((w) => w.stats.failed_24h) },
            ]}
          />
          <ul>
            {list.map((w) => (
              <li key={w.webhook_id}>{`${w.url}: ${w.stats.succeeded_24h + w.stats.failed_24h === 0 ? 'no delivery in 24 hours' : `${rate(w).toFixed(1)} % succeeded`}`}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function ActiveUsers({ appId }: { appId: string }) {
  const billing = useLoad(() => api<Ok<'getBilling'>>('GET', '/v1/billing', { appId }), [appId]);
  if (!billing.data) return null;
  const u = billing.data.usage;
  return <p>{`Monthly active users of the tenant (every app) from ${u.period_start.slice(0, 10)} to ${u.period_end.slice(0, 10)}: ${u.monthly_active_users} (GET /v1/billing).`}</p>;
}

export function ActivityPage({ params }: PageProps) {
  const appId = params.app!;
  const stats = useLoad(() => api<Ok<'getEventStats'>>('GET', '/v1/events/stats', { appId, query: { type: TYPES } }), [appId]);
  if (stats.error || !stats.data) return <Pending load={stats} text="Loading the activity…" />;
  const days = stats.data.days;
  const labels = days.map((d) => d.date);
  const count = (type: string) => days.map((d) => d.counts[type] ?? 0);
  return (
    <>
      <p>{`The last ${days.length} days (UTC), from ${labels[0]} to ${labels[labels.length - 1]}, counted as events are written (GET /v1/events/stats).`}</p>
      <section aria-labelledby="chart-signups">
        <h2 id="chart-signups">Sign-ups and sign-ins</h2>
        <BarChart title="Sign-ups (user.created) and sign-ins (session.created) per day" labelHeader="Day" labels={labels} series={[{ name: 'sign-ups', values: count('user.created') }, { name: 'sign-ins', values: count('session.created') }]} />
      </section>
      <section aria-labelledby="chart-failed">
        <h2 id="chart-failed">Failed sign-ins</h2>
        <BarChart title="Failed sign-ins (signin.failed) per day" labelHeader="Day" labels={labels} series={[{ name: 'failed sign-ins', values: count('signin.failed') }]} />
      </section>
      <section aria-labelledby="chart-active">
        <h2 id="chart-active">Active users</h2>
        <p>The stats count events, not distinct users: this chart shows sessions started per day (session.created), the closest daily measure of active users.</p>
        <BarChart title="Active users: sessions started (session.created) per day, not distinct users" labelHeader="Day" labels={labels} series={[{ name: 'sessions started', values: count('session.created') }]} />
        <ActiveUsers appId={appId} />
      </section>
      <Webhooks appId={appId} />
    </>
  );
}
