// /console/setup?token=cst_...: the link `serve` prints on a database without an operator. Signed in (the
// sign-up came first, <App>), the page consumes the token once (POST /v1/console/setup): its person becomes
// the operator, and lands on the tenants page.
import type { Body } from '@gatehouse/api-types';
import { useEffect, useRef } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { navigate } from '../router.js';
import { loadSession, refreshTenants } from '../tenants.js';
import { useAction } from '../ui/load.js';
import { Problem } from '../ui/problem.js';

export function SetupPage({ query }: PageProps) {
  const token = query.get('token') ?? '';
  const action = useAction();
  const started = useRef(false);
  useEffect(() => {
    if (started.current || !token) return;
    started.current = true;
    void action.run(async () => {
      await api('POST', '/v1/console/setup', { body: { token } satisfies Body<'completeConsoleSetup'> });
      await Promise.all([refreshTenants(), loadSession()]);
      navigate('/?welcome=operator', { replace: true });
    });
  }, [token]);
  if (!token) return <p>This address has no setup token: use the link `gatehouse serve` printed, or `gatehouse console setup-link`.</p>;
  return (
    <>
      {action.busy && <p role="status">Making you the operator…</p>}
      <Problem error={action.error} />
      {action.error !== undefined && <p>A setup link works once, for 24 hours: `gatehouse console setup-link` prints a new one.</p>}
    </>
  );
}
