// /console/accept?token=...: the link of a tenant invitation's email. Signed in with the invited address,
// the page accepts it (POST /v1/tenant_invitations/accept) and opens the tenant.
import type { Ok } from '@gatehouse/api-types';
import { useEffect, useRef } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { navigate } from '../router.js';
import { refreshTenants, tenantHome } from '../tenants.js';
import { useAction } from '../ui/load.js';
import { Problem } from '../ui/problem.js';

export function AcceptPage({ query }: PageProps) {
  const token = query.get('token') ?? '';
  const action = useAction();
  const started = useRef(false);
  useEffect(() => {
    if (started.current || !token) return;
    started.current = true;
    void action.run(async () => {
      const membership = await api<Ok<'acceptTenantInvitation'>>('POST', '/v1/tenant_invitations/accept', { body: { token } });
      await refreshTenants();
      navigate(tenantHome(membership.tenant_id), { replace: true });
    });
  }, [token]);
  if (!token) return <p>This address has no invitation token: open the link of the invitation email.</p>;
  return (
    <>
      {action.busy && <p role="status">Accepting the invitation…</p>}
      <Problem error={action.error} />
    </>
  );
}
