// /console/t/:tenant/apps/:app/webhooks: the app's webhook endpoints (GET /v1/webhooks with X-App-Id): url,
// event types, enabled or why not, the 24-hour success rate; and a new endpoint (POST /v1/webhooks; owner,
// admin) whose whsec_ secret is shown once. Each endpoint's own page has the rest (webhooks/endpoint.tsx).
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
import { parseTypes, successRate, TYPES_HINT, webhookHref, type Webhook } from './webhooks/model.js';

function NewWebhook({ appId, tenantId, onCreated }: { appId: string; tenantId: string; onCreated: () => void }) {
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState('*');
  const [description, setDescription] = useState('');
  const [created, setCreated] = useState<Ok<'createWebhook'> | undefined>(undefined);
  const create = useAction();
  const submit = () =>
    create.run(async () => {
      const body: Body<'createWebhook'> = { url: url.trim(), event_types: parseTypes(types), ...(description.trim() ? { description: description.trim() } : {}) };
      setCreated(await api<Ok<'createWebhook'>>('POST', '/v1/webhooks', { appId, body }));
      setUrl('');
      setDescription('');
      onCreated();
    });
  return (
    <section aria-labelledby="new-webhook">
      <h2 id="new-webhook">New endpoint</h2>
      <Form onSubmit={submit} label="New webhook endpoint">
        <Field label="Endpoint URL" type="url" required maxLength={2048} value={url} onValue={setUrl} autoComplete="off" hint="https, on a public address: Gatehouse POSTs each event there, signed (Standard Webhooks)." />
        <TextArea label="Event types" value={types} onValue={setTypes} hint={TYPES_HINT} rows={2} />
        <Field label="Description (optional)" maxLength={500} value={description} onValue={setDescription} />
        <button type="submit" disabled={create.busy}>
          Create endpoint
        </button>
      </Form>
      <Problem error={create.error} />
      {created?.secret && (
        <>
          <ShownOnce label={`Signing secret of ${created.url}`} value={created.secret} hint="Shown once: store it now. Gatehouse keeps it sealed, to sign with, and cannot show it again." />
          <p>
            <Link href={webhookHref(tenantId, appId, created.webhook_id)}>{`Open ${created.url}`}</Link>
          </p>
        </>
      )}
    </section>
  );
}

export function WebhooksPage({ params, tenant }: PageProps) {
  const appId = params.app!;
  const tenantId = params.tenant!;
  const list = useLoad(() => api<Ok<'listWebhooks'>>('GET', '/v1/webhooks', { appId }), [appId]);
  const hooks = list.data?.webhooks;
  return (
    <>
      <p>Gatehouse tells these addresses of every change in the app's users' lives and of its management actions, signed so your server can check they came from Gatehouse.</p>
      <LoadStatus load={list} text="Loading the endpoints…" />
      {hooks && hooks.length === 0 && <p>This app has no webhook endpoint.</p>}
      {hooks && hooks.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>{`Webhook endpoints: ${hooks.length} of 20`}</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Event types</th>
                <th scope="col">State</th>
                <th scope="col">Success in 24 h</th>
              </tr>
            </thead>
            <tbody>
              {hooks.map((hook) => (
                <tr key={hook.webhook_id}>
                  <td>
                    <Link href={webhookHref(tenantId, appId, hook.webhook_id)}>{hook.url}</Link>
                    {hook.description && <p class="hint">{hook.description}</p>}
                  </td>
                  <td>{hook.event_types.join(', ')}</td>
                  <td>{hook.enabled ? 'enabled' : `disabled: ${hook.disabled_reason ?? 'no reason given'}`}</td>
                  <td>{successRate(hook.stats)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canWrite(tenant?.role) && <NewWebhook appId={appId} tenantId={tenantId} onCreated={list.reload} />}
    </>
  );
}
