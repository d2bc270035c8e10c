// /console/: the tenants the person belongs to (an operator: every tenant), each with their role; a new
// tenant for whoever may create one (the session's tenant_creation: the operator, or anyone when the service
// runs with CONSOLE_OPEN_SIGNUP=true; the server still decides and its refusal is shown).
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { Link, navigate } from '../router.js';
import { useStore } from '../store.js';
import { refreshTenants, tenantHome } from '../tenants.js';
import { Field, Form } from '../ui/fields.js';
import { useAction } from '../ui/load.js';
import { Notice, Problem } from '../ui/problem.js';

export function TenantsPage({ query }: PageProps) {
  const { tenants = [], session } = useStore();
  const [name, setName] = useState('');
  const create = useAction();
  const submit = () =>
    create.run(async () => {
      const tenant = await api<Ok<'createTenant'>>('POST', '/v1/tenants', { body: { name: name.trim() } satisfies Body<'createTenant'> });
      await refreshTenants();
      setName('');
      navigate(tenantHome(tenant.tenant_id));
    });
  return (
    <>
      <Notice text={query.get('welcome') === 'operator' ? 'You are the operator now: you reach every tenant.' : undefined} />
      {tenants.length === 0 ? (
        <p>{session?.tenant_creation ? "You belong to no tenant yet. Create one below, or ask a tenant's owner to invite you." : "You belong to no tenant yet. Ask a tenant's owner to invite you."}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption>Your tenants</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Your role</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {tenants.map((t) => (
                <tr key={t.tenant_id}>
                  <td>
                    <Link href={tenantHome(t.tenant_id)}>{t.name}</Link>
                  </td>
                  <td>{t.role}</td>
                  <td>
                    <time dateTime={t.created_at}>{t.created_at.slice(0, 10)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {session?.tenant_creation && (
        <section aria-labelledby="new-tenant">
          <h2 id="new-tenant">New tenant</h2>
          <Form onSubmit={submit} label="New tenant">
            <Field label="Tenant name" required maxLength={200} value={name} onValue={setName} hint="The operator creates tenants (or anyone, when the service allows open sign-up); you become its owner." />
            <button type="submit" disabled={create.busy}>
              Create tenant
            </button>
          </Form>
          <Problem error={create.error} />
        </section>
      )}
    </>
  );
}
