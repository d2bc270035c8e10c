// The add / edit form of one OAuth provider: the fields its kind takes, the secret write-only (the API never
// shows it back; on an edit it may be left empty, and the API keeps the stored one), and the redirect URI to
// register at the provider.
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { CopyField } from '../../ui/copy.js';
import { Choice, Field, Form, TextArea } from '../../ui/fields.js';
import { useAction } from '../../ui/load.js';
import { Problem } from '../../ui/problem.js';
import { bodyOf, draftOf, emptyDraft, KINDS, kindOf, providerName, redirectUri, type Draft, type Kind, type Provider } from './kinds.js';

const SCOPES_HINT: Partial<Record<Kind, string>> = {
  google: 'Space-separated; empty: openid email profile (openid is always added).',
  github: 'Space-separated; empty: read:user user:email (user:email is always added).',
  oidc: 'Space-separated; empty: openid email profile (openid is always added).',
};

export function ProviderForm({ appId, editing, onSaved, onCancel }: { appId: string; editing?: Provider; onSaved: (p: Provider) => void; onCancel?: () => void }) {
  const [kind, setKind] = useState<Kind>(editing ? kindOf(editing.provider) : 'github');
  const [draft, setDraft] = useState<Draft>(() => (editing ? draftOf(editing) : emptyDraft()));
  const action = useAction();
  const set = (name: keyof Draft) => (value: string) => setDraft({ ...draft, [name]: value });
  const name = editing ? editing.provider : providerName(kind, draft);
  const title = editing ? `Edit ${editing.provider}` : 'Add a provider';
  const save = () => action.run(async () => onSaved(await api<Provider>('PUT', `/v1/oauth/providers/${name}`, { appId, body: bodyOf(kind, draft) })));
  const keep = 'Leave empty to keep the current secret; what you type replaces it. Write-only: kept encrypted, never shown back.';
  const secret = kind === 'apple' ? null : (
    <Field label="Client secret" type="password" required={!editing} value={draft.client_secret} onValue={set('client_secret')} autoComplete="new-password" hint={editing ? keep : 'Write-only: Gatehouse keeps it encrypted and never shows it back.'} />
  );
  return (
    <section aria-labelledby="provider-form">
      <h2 id="provider-form">{title}</h2>
      <Form onSubmit={save} label={title}>
        {!editing && <Choice label="Provider" value={kind} onValue={(v) => setKind(v as Kind)} options={KINDS} />}
        {kind === 'oidc' && !editing && (
          <Field label="Name (after oidc-)" required value={draft.name} onValue={set('name')} autoComplete="off" spellcheck={false} hint="Lower-case letters, digits and dashes, up to 40: the provider is then oidc-<name>." />
        )}
        {kind === 'oidc' && (
          <>
            <Field label="Issuer URL" type="url" required value={draft.issuer} onValue={set('issuer')} autoComplete="off" hint="Its discovery document is read at /.well-known/openid-configuration (http:// on loopback only)." />
            <Field label="Display name" required maxLength={64} value={draft.display_name} onValue={set('display_name')} hint='What a sign-in page shows ("Sign in with …").' />
          </>
        )}
        <Field label="Client ID" required value={draft.client_id} onValue={set('client_id')} autoComplete="off" spellcheck={false} />
        {secret}
        {kind === 'microsoft' && <Field label="Microsoft tenant" required value={draft.tenant} onValue={set('tenant')} autoComplete="off" hint="common, organizations, consumers, or a directory id or domain." />}
        {kind === 'apple' && (
          <>
            <Field label="Team ID" required value={draft.team_id} onValue={set('team_id')} autoComplete="off" />
            <Field label="Key ID" required value={draft.key_id} onValue={set('key_id')} autoComplete="off" />
            <TextArea label="Private key (.p8, PEM)" value={draft.private_key} onValue={set('private_key')} rows={4} hint={editing ? 'Leave empty to keep the current key; what you paste replaces it. Write-only: kept encrypted, never shown back.' : 'Write-only: kept encrypted, never shown back.'} />
          </>
        )}
        {SCOPES_HINT[kind] && <Field label="Scopes" value={draft.scopes} onValue={set('scopes')} autoComplete="off" spellcheck={false} hint={SCOPES_HINT[kind]} />}
        {(kind !== 'oidc' || draft.name.trim() || editing) && <CopyField label="Redirect URI" value={redirectUri(name)} hint="Register this callback URL at the provider." />}
        <button type="submit" disabled={action.busy}>
          {editing ? `Save ${editing.provider}` : 'Add provider'}
        </button>
        {onCancel && (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </Form>
      <Problem error={action.error} />
    </section>
  );
}
