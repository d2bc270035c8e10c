// The console's frame: signed out, every address shows the sign-in (or, for the setup and invitation links,
// the sign-up first); signed in, the tenants and what the person may do are loaded once and the address's page renders in <Layout>.
import { useEffect, useState } from 'preact/hooks';
import { Layout } from './layout.js';
import { SignIn } from './pages/sign-in.js';
import { match, useLocation } from './router.js';
import { findRoute } from './routes.js';
import { useStore } from './store.js';
import { loadSession, refreshTenants } from './tenants.js';
import { Problem } from './ui/problem.js';

export function App() {
  const state = useStore();
  const { path, query } = useLocation();
  const found = findRoute(path, match);
  const [error, setError] = useState<unknown>(undefined);

  useEffect(() => {
    if (state.signedIn && state.tenants === undefined) refreshTenants().catch(setError);
  }, [state.signedIn, state.tenants]);
  useEffect(() => {
    if (state.signedIn && state.session === undefined) loadSession().catch(setError);
  }, [state.signedIn, state.session]);
  useEffect(() => {
    document.title = `${found?.route.title ?? 'Not found'} · Gatehouse console`;
  }, [found?.route]);

  if (!state.signedIn) {
    const intro = found?.route.signUpIntro;
    return <SignIn key={path} intro={intro} startWith={intro ? 'sign-up' : 'sign-in'} />;
  }
  if (state.tenants === undefined || state.session === undefined) {
    return <main id="main">{error ? <Problem error={error} /> : <p class="loading">Loading your tenants…</p>}</main>;
  }
  const tenantId = found?.params.tenant;
  const tenant = tenantId ? state.tenants.find((t) => t.tenant_id === tenantId) : undefined;
  if (!found || (tenantId && !tenant)) {
    return (
      <Layout title="Not found" tenant={undefined} path={path}>
        <p>{tenantId ? 'This tenant does not exist, or you are not one of its members.' : 'There is no page at this address.'}</p>
      </Layout>
    );
  }
  const Page = found.route.page;
  return (
    <Layout title={found.route.title} tenant={tenant} path={path}>
      <Page params={found.params} query={query} tenant={tenant} />
    </Layout>
  );
}
