// An endpoint's settings: the form (PATCH /v1/webhooks/{id} with the changed fields; owner, admin) or, for a
// viewer, the same settings as text.
import type { Body, Ok } from '@gatehouse/api-types';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Check, Field, Form, TextArea } from '../../ui/fields.js';
import { useAction } from '../../ui/load.js';
import { Notice, Problem } from '../../ui/problem.js';
import { parseTypes, TYPES_HINT, when, type Webhook } from './model.js';

export function Settings({ hook }: { hook: Webhook }) {
  return (
    <dl class="settings">
      <dt>URL</dt>
      <dd>{hook.url}</dd>
      <dt>Event types</dt>
      <dd>{hook.event_types.join(', ')}</dd>
      <dt>Description</dt>
      <dd>{hook.description || '—'}</dd>
      <dt>State</dt>
      <dd>{hook.enabled ? 'enabled' : `disabled: ${hook.disabled_reason ?? 'no reason given'}`}</dd>
      <dt>Created</dt>
      <dd>{when(hook.created_at)}</dd>
    </dl>
  );
}

export function EditWebhook({ appId, hook, onSaved }: { appId: string; hook: Webhook; onSaved: () => void }) {
  const [url, setUrl] = useState(hook.url);
  const [types, setTypes] = useState(hook.event_types.join(', '));
  const [description, setDescription] = useState(hook.description);
  const [enabled, setEnabled] = useState(hook.enabled);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const action = useAction();
  useEffect(() => {
    setUrl(hook.url);
    setTypes(hook.event_types.join(', '));
    setDescription(hook.description);
    setEnabled(hook.enabled);
  }, [hook.webhook_id, hook.updated_at]);
  const save = () =>
    action.run(async () => {
      setSaved(undefined);
      const body: Body<'updateWebhook'> = {};
      if (url.trim() !== hook.url) body.url = url.trim();
      const list = parseTypes(types);
      if (list.join(',') !== hook.event_types.join(',')) body.event_types = list;
      if (description.trim() !== hook.description) body.description = description.trim();
      if (enabled !== hook.enabled) body.enabled = enabled;
      if (Object.keys(body).length === 0) return setSaved('Nothing changed.');
      await api<Ok<'updateWebhook'>>('PATCH', `/v1/webhooks/${hook.webhook_id}`, { appId, body });
      onSaved();
      setSaved(`Saved: ${Object.keys(body).join(', ')}.`);
    });
  return (
    <Form onSubmit={save} label="Endpoint settings">
      {!hook.enabled && <p>{`Disabled: ${hook.disabled_reason ?? 'no reason given'}.`}</p>}
      <Field label="Endpoint URL" type="url" required maxLength={2048} value={url} onValue={setUrl} autoComplete="off" />
      <TextArea label="Event types" value={types} onValue={setTypes} hint={TYPES_HINT} rows={2} />
      <Field label="Description" maxLength={500} value={description} onValue={setDescription} />
      <Check label="Enabled" checked={enabled} onChecked={setEnabled} hint="Off: nothing is sent to it. On again clears the reason it was disabled, the service's too." />
      <button type="submit" disabled={action.busy}>
        Save endpoint
      </button>
      <Notice text={saved} />
      <Problem error={action.error} />
    </Form>
  );
}
