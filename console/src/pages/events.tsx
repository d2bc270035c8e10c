// /console/t/:tenant/apps/:app/events: the app's event log (GET /v1/events with X-App-Id), and
// /console/t/:tenant/events: the tenant's own events (GET /v1/tenants/{t}/events: members, invitations, API
// tokens, apps created and deleted). Both read only, for every role; events/log.tsx draws them.
import type { PageProps } from '../routes.js';
import { EventLog } from './events/log.js';

export function AppEventsPage({ params, query }: PageProps) {
  const base = `/t/${params.tenant}/apps/${params.app}/events`;
  return <EventLog base={base} path="/v1/events" appId={params.app} query={query} byUser />;
}

export function TenantEventsPage({ params, query }: PageProps) {
  return (
    <>
      <p>The tenant's own management actions (members, invitations, API tokens, apps created and deleted, settings). An app's events are on its Events page.</p>
      <EventLog base={`/t/${params.tenant}/events`} path={`/v1/tenants/${params.tenant}/events`} query={query} byUser={false} />
    </>
  );
}
