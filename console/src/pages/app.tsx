// /console/t/:tenant/apps/:app: an app's settings, each explained in one line (PATCH sends the changed
// ones), its keys page, and its deletion behind a typed confirmation. A viewer reads the settings only; the
// operator-only ones (domain, cookie_domain) are shown to the operator alone (GET /v1/console/session).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { navigate } from '../router.js';
import { canWrite, useStore } from '../store.js';
import { TypedConfirm } from '../ui/confirm.js';
import { Check, Choice, Field, Form, TextArea } from '../ui/fields.js';
import { useAction, useLoad } from '../ui/load.js';
import { Pending } from '../ui/pending.js';
import { Notice, Problem } from '../ui/problem.js';
import { fromField, SETTINGS, toField, type App, type Setting } from './app-settings.js';

type Fields = Record<string, string | boolean>;
const fieldsOf = (app: App): Fields => Object.fromEntries([['name', app.name], ...SETTINGS.map((s) => [s.name, toField(s, app[s.name])])]);

function SettingField({ setting, value, onValue }: { setting: Setting; value: string | boolean; onValue: (v: string | boolean) => void }) {
  const hint = setting.help;
  if (setting.kind === 'bool') return <Check label={setting.label} checked={value === true} onChecked={onValue} hint={hint} />;
  if (setting.kind === 'choice') {
    const options: [string, string][] = value === '' ? [['', "The server's default"], ...setting.options!] : setting.options!;
    return <Choice label={setting.label} value={String(value)} onValue={onValue} options={options} hint={hint} />;
  }
  if (setting.kind === 'lines' || setting.kind === 'json') return <TextArea label={setting.label} value={String(value)} onValue={onValue} hint={hint} />;
  return <Field label={setting.label} value={String(value)} onValue={onValue} hint={hint} inputMode={setting.kind === 'text' ? undefined : 'numeric'} />;
}

function Settings({ app, onSaved, operatorFields }: { app: App; onSaved: (app: App) => void; operatorFields: boolean }) {
  const [fields, setFields] = useState<Fields>(() => fieldsOf(app));
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const action = useAction();
  useEffect(() => setFields(fieldsOf(app)), [app]);
  const before = fieldsOf(app);
  const shown = SETTINGS.filter((s) => operatorFields || !s.operatorOnly);
  const save = () =>
    action.run(async () => {
      setSaved(undefined);
      const body: Record<string, unknown> = {};
      if (fields.name !== before.name) body.name = String(fields.name).trim();
      for (const s of shown) if (fields[s.name] !== before[s.name]) body[s.name] = fromField(s, fields[s.name]!);
      if (Object.keys(body).length === 0) return setSaved('Nothing changed.');
      onSaved(await api<App>('PATCH', `/v1/apps/${app.app_id}`, { body }));
      setSaved(`Saved: ${Object.keys(body).join(', ')}.`);
    });
  return (
    <Form onSubmit={save} label="App settings">
      <Field label="App name" required maxLength={200} value={String(fields.name)} onValue={(v) => setFields({ ...fields, name: v })} />
      {shown.map((s) => (
        <SettingField key={s.name} setting={s} value={fields[s.name]!} onValue={(v) => setFields({ ...fields, [s.name]: v })} />
      ))}
      <button type="submit" disabled={action.busy}>
        Save settings
      </button>
      <Notice text={saved} />
      <Problem error={action.error} />
    </Form>
  );
}

function ReadOnly({ app, operatorFields }: { app: App; operatorFields: boolean }) {
  return (
    <dl class="settings">
      {SETTINGS.filter((s) => operatorFields || !s.operatorOnly).map((s) => (
        <div key={s.name}>
          <dt>{s.label}</dt>
          <dd>{String(toField(s, app[s.name]) || (s.kind === 'bool' ? 'off' : '—'))}</dd>
          <dd class="hint">{s.help}</dd>
        </div>
      ))}
    </dl>
  );
}

export function AppPage({ tenant, params }: PageProps) {
  const t = tenant!;
  const loaded = useLoad(() => api<App>('GET', `/v1/apps/${params.app}`), [params.app]);
  const [app, setApp] = useState<App | undefined>(undefined);
  const remove = useAction();
  const operator = useStore().session?.operator === true;
  const current = app ?? loaded.data;
  if (loaded.error || !current) return <Pending load={loaded} text="Loading the app…" />;
  const destroy = () =>
    remove.run(async () => {
      await api('DELETE', `/v1/apps/${current.app_id}`);
      navigate(`/t/${t.tenant_id}/apps`);
    });
  return (
    <>
      <p>
        <strong>{current.name}</strong> · <code>{current.app_id}</code> · publishable key <code>{current.publishable_key}</code>
      </p>
      <section aria-labelledby="settings">
        <h2 id="settings">Settings</h2>
        {canWrite(t.role) ? <Settings app={current} onSaved={setApp} operatorFields={operator} /> : <ReadOnly app={current} operatorFields={operator} />}
      </section>
      {canWrite(t.role) && <TypedConfirm what="this app" expected={current.name} action={remove} onConfirm={destroy} />}
    </>
  );
}
