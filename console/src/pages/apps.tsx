// /console/t/:tenant/apps: the tenant's apps, and a new one (owner, admin): its secret key is shown once.
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { Link } from '../router.js';
import { canWrite } from '../store.js';
import { Field, Form, TextArea } from '../ui/fields.js';
import { useAction, useLoad } from '../ui/load.js';
import { LoadStatus } from '../ui/pending.js';
import { Problem } from '../ui/problem.js';
import { ShownOnce } from '../ui/secret.js';
import type { App } from './app-settings.js';

function NewApp({ tenantId, onCreated }: { tenantId: string; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [origins, setOrigins] = useState('');
  const [created, setCreated] = useState<App | undefined>(undefined);
  const action = useAction();
  const submit = () =>
    action.run(async () => {
      const allowed = origins.split(/\s*\n\s*/).filter(Boolean);
      const app = await api<Ok<'createTenantApp'>>('POST', `/v1/tenants/${tenantId}/apps`, { body: { name: name.trim(), ...(allowed.length ? { allowed_origins: allowed } : {}) } satisfies Body<'createTenantApp'> });
      setCreated(app);
      setName('');
      setOrigins('');
      onCreated();
    });
  return (
    <section aria-labelledby="new-app">
      <h2 id="new-app">New app</h2>
      <Form onSubmit={submit} label="New app">
        <Field label="App name" required maxLength={200} value={name} onValue={setName} />
        <TextArea label="Allowed origins (optional)" value={origins} onValue={setOrigins} hint="One per line, e.g. https://app.example.com: the pages that may call this app." />
        <button type="submit" disabled={action.busy}>
          Create app
        </button>
      </Form>
      <Problem error={action.error} />
      {created && (
        <div role="region" aria-label={`Keys of ${created.name}`}>
          <p>
            Created <Link href={`/t/${tenantId}/apps/${created.app_id}`}>{created.name}</Link>. Its publishable key (for browsers): <code>{created.publishable_key}</code>
          </p>
          <ShownOnce label="Secret key (for your servers)" value={created.secret_key!} />
        </div>
      )}
    </section>
  );
}

export function AppsPage({ tenant }: PageProps) {
  const t = tenant!;
  const apps = useLoad(() => api<Ok<'listTenantApps'>>('GET', `/v1/tenants/${t.tenant_id}/apps`), [t.tenant_id]);
  return (
    <>
      <LoadStatus load={apps} text="Loading the apps…" />
      {apps.data && apps.data.apps.length === 0 && <p>This tenant has no app yet.</p>}
      {apps.data && apps.data.apps.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Apps of {t.name}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">App id</th>
                <th scope="col">Publishable key</th>
              </tr>
            </thead>
            <tbody>
              {apps.data.apps.map((app) => (
                <tr key={app.app_id}>
                  <td>
                    <Link href={`/t/${t.tenant_id}/apps/${app.app_id}`}>{app.name}</Link>
                  </td>
                  <td>
                    <code>{app.app_id}</code>
                  </td>
                  <td>
                    <code>{app.publishable_key}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canWrite(t.role) && <NewApp tenantId={t.tenant_id} onCreated={apps.reload} />}
    </>
  );
}
