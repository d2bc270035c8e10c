// Client-side routes under /console/ (the service answers index.html for each of them). Paths given to
// navigate() and <Link> are relative to /console: '/t/ten_1/apps' is /console/t/ten_1/apps.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';
const listeners = new Set<() => void>();
addEventListener('popstate', () => listeners.forEach((listener) => listener()));

/** The path under /console ('/' at the root) and the query. */
export function current(): { path: string; query: URLSearchParams } {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/';
  return { path: path.length > 1 ? path.replace(/\/+$/, '') : path, query: new URLSearchParams(location.search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  history[options.replace ? 'replaceState' : 'pushState'](null, '', BASE + to);
  listeners.forEach((listener) => listener());
}

/** Re-renders on every navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((n) => n + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return current();
}

/** `pattern` ('/t/:tenant/apps') against `path`: the parameters, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i]!.startsWith(':')) params[want[i]!.slice(1)] = decodeURIComponent(got[i]!);
    else if (want[i] !== got[i]) return undefined;
  }
  return params;
}

type LinkProps = { href: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' | undefined };

/** An anchor that navigates in the page (a real href: opens in a new tab too). */
export function Link({ href, children, ...rest }: LinkProps) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a {...rest} href={BASE + href} onClick={onClick}>
      {children}
    </a>
  );
}
