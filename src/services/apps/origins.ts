import { badRequest } from '../../errors.js';
import type { Deps } from '../../deps.js';
import * as applications from '../../store/repos/applications.js';
import type { Application } from '../../store/repos/applications.js';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Loopback by name: localhost, 127.0.0.1, [::1], and any `*.localhost` (RFC 6761 §6.3; browsers resolve them to loopback). */
const isLoopbackName = (host: string) => LOCAL_HOSTS.has(host) || host.endsWith('.localhost');

/**
 * Parses an origin for an allow-list: an absolute http(s) URL with nothing but scheme, host and port,
 * https unless the host is loopback. Returns the canonical origin, or throws 400 naming the value.
 */
export function parseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badRequest(`"${value}" is not an absolute URL`);
  }
  if (url.username || url.password) throw badRequest(`"${value}" must not carry credentials`);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackName(url.hostname))) {
    throw badRequest(`"${value}" must use https (http only for localhost, *.localhost and 127.0.0.1)`);
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw badRequest(`"${value}" must be an origin (scheme, host and port only)`);
  }
  return url.origin;
}

/** The app's allow-list: its configured origins plus its verified domain. */
export function allowedOriginsOf(app: Application): string[] {
  const origins = new Set(app.allowedOrigins);
  if (app.domain) origins.add(`https://${app.domain}`);
  return [...origins];
}

/**
 * Checks a redirect target (redirect_url, return_to) against the app's allow-list: an absolute URL,
 * https except for loopback, no userinfo, origin exactly on the list. Returns the parsed URL or throws 400.
 */
export function checkRedirect(app: Application, target: string, field = 'redirect_url'): URL {
  return checkRedirectAgainst(allowedOriginsOf(app), target, field);
}

export function checkRedirectAgainst(origins: string[], target: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw badRequest(`${field} must be an absolute URL`, 'invalid_redirect');
  }
  if (url.username || url.password) throw badRequest(`${field} must not carry credentials`, 'invalid_redirect');
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackName(url.hostname));
  if (!secure || !origins.includes(url.origin)) {
    throw badRequest(`${field} is not on the application's allow-list`, 'invalid_redirect');
  }
  return url;
}

/** A verified domain: a lower-case host name without scheme, port or path. */
export function parseDomain(value: string): string {
  const host = value.trim().toLowerCase();
  if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(host)) {
    throw badRequest(`"${value}" is not a host name (give it without scheme, port or path)`);
  }
  return host;
}

/** Every origin some live app allows (the CORS plugin answers a preflight from it before it knows the app). */
export const listAllOrigins = (deps: Pick<Deps, 'db'>): Promise<string[]> => applications.listAllOrigins(deps.db);

/** A value that differs after any write that may change listAllOrigins' answer, on any node or the CLI. */
export const originsVersion = (deps: Pick<Deps, 'db'>): Promise<string> => applications.originsVersion(deps.db);
