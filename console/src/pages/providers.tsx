// /console/t/:tenant/apps/:app/providers: the app's OAuth sign-in providers (GET /v1/oauth/providers with
// X-App-Id; secrets come back as "****" and are never shown), each with the redirect URI to register; add
// or edit one (PUT, the secret typed each time), delete one behind its typed name. A viewer reads only.
import type { Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { canWrite } from '../store.js';
import { TypedConfirm } from '../ui/confirm.js';
import { useAction, useLoad } from '../ui/load.js';
import { LoadStatus } from '../ui/pending.js';
import { Notice } from '../ui/problem.js';
import { ProviderForm } from './providers/form.js';
import { redirectUri, type Provider } from './providers/kinds.js';

export function ProvidersPage({ params, tenant }: PageProps) {
  const appId = params.app!;
  const list = useLoad(() => api<Ok<'listOAuthProviders'>>('GET', '/v1/oauth/providers', { appId }), [appId]);
  const [editing, setEditing] = useState<Provider | undefined>(undefined);
  const [deleting, setDeleting] = useState<Provider | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const [added, setAdded] = useState(0);
  const remove = useAction();
  const writer = canWrite(tenant?.role);
  const saved = (p: Provider) => {
    setDone(`Saved ${p.provider}.`);
    setEditing(undefined);
    setAdded((n) => n + 1); // a fresh form: the secret typed is not kept
    list.reload();
  };
  const destroy = () =>
    remove.run(async () => {
      await api('DELETE', `/v1/oauth/providers/${deleting!.provider}`, { appId });
      setDone(`Deleted ${deleting!.provider}.`);
      setDeleting(undefined);
      list.reload();
    });
  const providers = list.data?.providers ?? [];
  return (
    <>
      <p>Users sign in with these providers through the app's own sign-in page (docs/oauth.md).</p>
      <LoadStatus load={list} text="Loading the providers…" />
      {list.data && providers.length === 0 && <p>No provider is configured for this app.</p>}
      {providers.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>{`Sign-in providers: ${providers.length}`}</caption>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Client ID</th>
                <th scope="col">Details</th>
                <th scope="col">Redirect URI</th>
                {writer && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {providers.map((p) => (
                <tr key={p.provider}>
                  <td>
                    {p.display_name} <code>{p.provider}</code>
                  </td>
                  <td>
                    <code>{p.client_id}</code>
                  </td>
                  <td>{[p.issuer && `issuer ${p.issuer}`, p.tenant && `tenant ${p.tenant}`, p.scopes.length ? `scopes ${p.scopes.join(' ')}` : ''].filter(Boolean).join('; ') || '—'}</td>
                  <td>
                    <code>{redirectUri(p.provider)}</code>
                  </td>
                  {writer && (
                    <td class="actions">
                      <button type="button" class="secondary" onClick={() => (setDeleting(undefined), setEditing(p))}>
                        {`Edit ${p.provider}`}
                      </button>
                      <button type="button" class="secondary" onClick={() => (setEditing(undefined), remove.clear(), setDeleting(p))}>
                        {`Delete ${p.provider}`}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Notice text={done} />
      {writer && deleting && <TypedConfirm what={`provider ${deleting.provider}`} expected={deleting.provider} action={remove} onConfirm={destroy} />}
      {writer && (editing ? <ProviderForm key={editing.provider} appId={appId} editing={editing} onSaved={saved} onCancel={() => setEditing(undefined)} /> : <ProviderForm key={`new-${added}`} appId={appId} onSaved={saved} />)}
    </>
  );
}
