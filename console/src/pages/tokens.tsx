// /console/t/:tenant/tokens: the tenant's API tokens (tk_..., for scripts and CI calling the Management API):
// create (the token shown once, with a copy button), list (never the token), revoke. Owners and admins.
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { canWrite, ROLES, type Role } from '../store.js';
import { Choice, Field, Form } from '../ui/fields.js';
import { useAction, useLoad } from '../ui/load.js';
import { Problem } from '../ui/problem.js';
import { ShownOnce } from '../ui/secret.js';

type ApiToken = Ok<'listApiTokens'>['tokens'][number];

function Revoke({ tenantId, token, onDone }: { tenantId: string; token: ApiToken; onDone: () => void }) {
  const action = useAction();
  return (
    <>
      <button type="button" class="secondary" disabled={action.busy} onClick={() => action.run(async () => (await api('DELETE', `/v1/tenants/${tenantId}/tokens/${token.token_id}`), onDone()))}>
        {`Revoke ${token.name}`}
      </button>
      <Problem error={action.error} />
    </>
  );
}

export function TokensPage({ tenant }: PageProps) {
  const t = tenant!;
  const list = useLoad(() => api<Ok<'listApiTokens'>>('GET', `/v1/tenants/${t.tenant_id}/tokens`), [t.tenant_id]);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [days, setDays] = useState('90');
  const [created, setCreated] = useState<Ok<'createApiToken'> | undefined>(undefined);
  const create = useAction();
  const writer = canWrite(t.role);
  const submit = () =>
    create.run(async () => {
      const body: Body<'createApiToken'> = { name: name.trim(), role, ...(days.trim() ? { expires_in_days: Number(days) } : {}) };
      setCreated(await api<Ok<'createApiToken'>>('POST', `/v1/tenants/${t.tenant_id}/tokens`, { body }));
      setName('');
      list.reload();
    });
  return (
    <>
      <Problem error={list.error} />
      {list.data && list.data.tokens.length === 0 && <p>This tenant has no API token.</p>}
      {list.data && list.data.tokens.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>API tokens of {t.name}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                {writer && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {list.data.tokens.map((token) => (
                <tr key={token.token_id}>
                  <td>{token.name}</td>
                  <td>{token.role}</td>
                  <td>{token.expires_at ? <time dateTime={token.expires_at}>{token.expires_at.slice(0, 10)}</time> : 'never'}</td>
                  {writer && (
                    <td>
                      <Revoke tenantId={t.tenant_id} token={token} onDone={list.reload} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {writer && (
        <section aria-labelledby="new-token">
          <h2 id="new-token">New API token</h2>
          <Form onSubmit={submit} label="New API token">
            <Field label="Token name" required maxLength={200} value={name} onValue={setName} hint="What uses it, e.g. the deploy pipeline." />
            <Choice label="Token role" value={role} onValue={setRole} options={ROLES} />
            <Field label="Expires after (days)" inputMode="numeric" value={days} onValue={setDays} hint="1 to 3650; empty: never." />
            <button type="submit" disabled={create.busy}>
              Create token
            </button>
          </Form>
          <Problem error={create.error} />
          {created?.token && <ShownOnce label={`Token ${created.name}`} value={created.token} />}
        </section>
      )}
    </>
  );
}
