// The page around every signed-in view: a skip link, the header (tenant switcher, your account, sign out), the tenant's
// nav, and the main region whose <h1> takes the focus on each navigation (screen readers hear the new page).
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { Link, navigate } from './router.js';
import { ROUTES } from './routes.js';
import { gatehouse } from './session.js';
import { useStore, type Tenant } from './store.js';
import { tenantHome } from './tenants.js';

function TenantSwitcher({ tenant }: { tenant: Tenant | undefined }) {
  const { tenants = [] } = useStore();
  const id = useId();
  if (tenants.length === 0) return null;
  return (
    <div class="switcher">
      <label for={id}>Tenant</label>
      <select
        id={id}
        value={tenant?.tenant_id ?? ''}
        onChange={(e) => {
          const value = (e.target as HTMLSelectElement).value;
          navigate(value ? tenantHome(value) : '/');
        }}
      >
        <option value="">All tenants</option>
        {tenants.map((t) => (
          <option value={t.tenant_id} key={t.tenant_id}>
            {`${t.name} (${t.role})`}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The nav of an app's pages (routes with `appNav`), on every page under /t/:tenant/apps/:app. */
function AppNav({ path }: { path: string }) {
  const m = /^\/t\/([^/]+)\/apps\/([^/]+)/.exec(path);
  if (!m) return null;
  const [, tenantId, appId] = m;
  const pages = ROUTES.filter((route) => route.appNav);
  const hrefOf = (pattern: string) => pattern.replace(':tenant', tenantId!).replace(':app', appId!);
  const base = hrefOf('/t/:tenant/apps/:app');
  // Settings is the app's own address; every other entry also marks its sub-pages (a webhook of the webhooks).
  const here = (href: string) => (path === href || (href !== base && path.startsWith(href + '/')) ? 'page' : undefined);
  return (
    <nav aria-label="App" class="app-nav">
      <ul>
        {pages.map((route) => {
          const href = hrefOf(route.path);
          return (
            <li key={route.path}>
              <Link href={href} aria-current={here(href)}>
                {route.appNav}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

export function Layout({ title, tenant, path, children }: { title: string; tenant: Tenant | undefined; path: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else heading.current?.focus();
  }, [path]);
  const nav = tenant ? ROUTES.filter((route) => route.nav) : [];
  const here = (href: string) => (path === href || path.startsWith(href + '/') ? 'page' : undefined);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/" class="brand">
          Gatehouse console
        </Link>
        <TenantSwitcher tenant={tenant} />
        <Link href="/account" aria-current={path === '/account' ? 'page' : undefined}>
          Your account
        </Link>
        <button type="button" class="secondary" onClick={() => void gatehouse().auth.signOut()}>
          Sign out
        </button>
      </header>
      <nav aria-label="Console">
        <ul>
          <li>
            <Link href="/" aria-current={path === '/' ? 'page' : undefined}>
              Tenants
            </Link>
          </li>
          {tenant &&
            nav.map((route) => {
              const href = route.path.replace(':tenant', tenant.tenant_id);
              return (
                <li key={route.path}>
                  <Link href={href} aria-current={here(href)}>
                    {route.nav}
                  </Link>
                </li>
              );
            })}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {tenant && (
          <p class="context">
            {tenant.name} · your role: <strong>{tenant.role}</strong>
          </p>
        )}
        <AppNav path={path} />
        <h1 tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {children}
      </main>
    </>
  );
}
