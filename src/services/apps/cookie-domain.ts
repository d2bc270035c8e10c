import { badRequest } from '../../errors.js';
import { parseDomain } from './origins.js';

// The app option `cookie_domain` (docs/browser.md, "Your own API"): `__session` is set with Domain=<it>, so
// the tenant's own API on another subdomain of the site receives the access token. `__refresh` stays
// host-only: only Gatehouse ever sees the refresh token.

const refuse = (detail: string) => badRequest(detail, 'invalid_cookie_domain');

/** The column of a given `cookie_domain`: a host name of at least two labels; null or '' removes it. */
export function cookieDomainColumn(value: string | null): string | null {
  if (value === null || value.trim() === '') return null;
  const domain = parseDomain(value.trim().replace(/^\./, ''));
  if (!domain.includes('.')) throw refuse(`cookie_domain "${value}" must have at least two labels (a registrable domain such as example.com)`);
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

/**
 * The Domain attribute of `__session` on an answer to a request for `host`: the app's cookie domain when
 * the request came under it (a browser refuses a cookie whose Domain does not contain the request's host,
 * so a request by another name, such as a publishable key on 127.0.0.1, keeps host-only cookies).
 */
export function sessionCookieDomain(cookieDomain: string | null | undefined, host: string | undefined): string | undefined {
  if (!cookieDomain || !host) return undefined;
  return isUnder(host.toLowerCase(), cookieDomain) ? cookieDomain : undefined;
}
