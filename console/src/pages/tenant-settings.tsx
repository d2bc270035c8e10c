// /console/t/:tenant/settings: rename the tenant (owner, admin) and delete it with every app (owner only,
// after typing its name). A viewer sees the name only.
import type { Body } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { navigate } from '../router.js';
import { canWrite } from '../store.js';
import { refreshTenants } from '../tenants.js';
import { TypedConfirm } from '../ui/confirm.js';
import { Field, Form } from '../ui/fields.js';
import { useAction } from '../ui/load.js';
import { Notice, Problem } from '../ui/problem.js';

export function TenantSettingsPage({ tenant }: PageProps) {
  const t = tenant!;
  const [name, setName] = useState(t.name);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const rename = useAction();
  const remove = useAction();
  if (!canWrite(t.role)) return <p>Name: {t.name}. Viewers change nothing here.</p>;
  const save = () =>
    rename.run(async () => {
      setSaved(undefined);
      await api('PATCH', `/v1/tenants/${t.tenant_id}`, { body: { name: name.trim() } satisfies Body<'updateTenant'> });
      await refreshTenants();
      setSaved('Saved.');
    });
  const destroy = () =>
    remove.run(async () => {
      await api('DELETE', `/v1/tenants/${t.tenant_id}`);
      await refreshTenants();
      navigate('/');
    });
  return (
    <>
      <section aria-labelledby="rename">
        <h2 id="rename">Name</h2>
        <Form onSubmit={save} label="Rename the tenant">
          <Field label="Tenant name" required maxLength={200} value={name} onValue={setName} />
          <button type="submit" disabled={rename.busy}>
            Save name
          </button>
        </Form>
        <Notice text={saved} />
        <Problem error={rename.error} />
      </section>
      {t.role === 'owner' && <TypedConfirm what="this tenant and all its apps" expected={t.name} action={remove} onConfirm={destroy} />}
    </>
  );
}
