import { parse } from 'tldts';
import { badRequest } from '../../errors.js';
import type { Db } from '../../store/db.js';
import { listDomainScopes } from '../../store/repos/applications.js';
import { parseDomain } from './origins.js';

// The app option `cookie_domain` (docs/browser.md, "Your own API"): `__session` is set with Domain=<it>, so
// the tenant's own API on another subdomain of the site receives the access token. `__refresh` stays
// host-only: only Gatehouse ever sees the refresh token.

const refuse = (detail: string) => badRequest(detail, 'invalid_cookie_domain');
const refuseDomain = (detail: string) => badRequest(detail, 'invalid_domain');

/**
 * The column of a given `cookie_domain`: a host name of at least two labels that is no public suffix (the
 * Public Suffix List, private section included, through tldts: `co.uk`, `github.io`); null or '' removes it.
 */
export function cookieDomainColumn(value: string | null): string | null {
  if (value === null || value.trim() === '') return null;
  const domain = parseDomain(value.trim().replace(/^\./, ''));
  if (!domain.includes('.')) throw refuse(`cookie_domain "${value}" must have at least two labels (a registrable domain such as example.com)`);
  const parsed = parse(domain, { allowPrivateDomains: true });
  if (parsed.isIp || parsed.domain === null) throw refuse(`cookie_domain "${value}" is a public suffix: a cookie for it would reach every site under it`);
  return domain;
}

/** Whether `host` is `domain` or one of its subdomains. */
export const isUnder = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/** The rule between the two settings, checked on every write of either: the cookie domain contains the verified domain. */
export function checkCookieDomain(domain: string | null, cookieDomain: string | null): void {
  if (cookieDomain === null) return;
  if (domain === null) throw refuse('cookie_domain needs a verified domain (domain) under it; set domain first, or clear cookie_domain');
  if (!isUnder(domain, cookieDomain)) {
    throw refuse(`cookie_domain "${cookieDomain}" must be the verified domain "${domain}" or a parent domain of it`);
  }
}

/** PUBLIC_BASE_URL's host name, lower-case and without IPv6 brackets. */
const hostOf = (publicBaseUrl: string) => new URL(publicBaseUrl).hostname.toLowerCase().replace(/^\[|\]$/g, '');

/**
 * The rules between an app's two settings and the rest of the server (docs/browser.md), on the row as the
 * write leaves it: the domain is not Gatehouse's own host, an IP address or `localhost` (keyless requests
 * to it would resolve to the app); the cookie domain contains neither Gatehouse's host nor another app's
 * domain, of any tenant, and the domain is under no other app's cookie domain (each would plant cookies on
 * the other's site).
 */
export async function checkDomainScope(db: Db, publicBaseUrl: string | undefined, app: { id: string; domain: string | null; cookieDomain: string | null }): Promise<void> {
  const gatehouse = publicBaseUrl === undefined ? undefined : hostOf(publicBaseUrl);
  const { domain, cookieDomain } = app;
  if (domain !== null) {
    if (domain === gatehouse) throw refuseDomain(`domain "${domain}" is this server's own host (PUBLIC_BASE_URL)`);
    if (domain === 'localhost' || parse(domain).isIp) throw refuseDomain(`domain "${domain}" must be a host name of the app's own, not an IP address or localhost`);
  }
  if (cookieDomain !== null && gatehouse !== undefined && isUnder(gatehouse, cookieDomain)) {
    throw refuse(`cookie_domain "${cookieDomain}" contains this server's own host (PUBLIC_BASE_URL)`);
  }
  if (domain === null && cookieDomain === null) return;
  for (const other of await listDomainScopes(db, app.id)) {
    if (cookieDomain !== null && other.domain !== null && isUnder(other.domain, cookieDomain)) {
      throw refuse(`cookie_domain "${cookieDomain}" contains another application's domain`);
    }
    if (domain !== null && other.cookieDomain !== null && isUnder(domain, other.cookieDomain)) {
      throw refuseDomain(`domain "${domain}" is under another application's cookie_domain`);
    }
  }
}

/**
 * The Domain attribute of `__session` on an answer to a request for `host`: the app's cookie domain when
 * the request came for the app's verified domain or a name under it. A request by another name (a
 * publishable key on 127.0.0.1, Gatehouse's own host, a sibling that is merely under the cookie domain)
 * keeps host-only cookies: only the app's own site may set a cookie for its parent domain.
 */
export function sessionCookieDomain(app: { domain: string | null; cookieDomain: string | null } | undefined, host: string | undefined): string | undefined {
  if (!app?.cookieDomain || !app.domain || !host) return undefined;
  const name = host.toLowerCase();
  return isUnder(name, app.domain) && isUnder(name, app.cookieDomain) ? app.cookieDomain : undefined;
}
