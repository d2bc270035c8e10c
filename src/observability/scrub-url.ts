// What of a URL may reach a log line.
import { maskEmailsIn } from './mask-email.js';

// Query parameters that carry one-time secrets (email links, SSO hops, OAuth codes) never reach a log line.
const SECRET_PARAMS = new Set(['token', '__sso_token', 'nonce', 'code', 'state', 'refresh_token', 'publishable_key']);

/** A parameter's name as the query parser reads it (`%74oken` is `token`), lower-cased. */
function paramName(raw: string): string {
  if (!raw.includes('%') && !raw.includes('+')) return raw.toLowerCase();
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/**
 * The URL with the value of every secret-carrying query parameter replaced by `[redacted]`, and any email
 * address in it masked (`GET /v1/users?email=...`: docs/privacy.md).
 */
export function scrubUrl(url: string): string {
  return maskEmailsIn(redactSecretParams(url));
}

function redactSecretParams(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const hash = url.indexOf('#', query);
  const end = hash < 0 ? url.length : hash;
  const pairs = url.slice(query + 1, end).split('&');
  for (let i = 0; i < pairs.length; i++) {
    const eq = pairs[i]!.indexOf('=');
    if (eq >= 0 && SECRET_PARAMS.has(paramName(pairs[i]!.slice(0, eq)))) pairs[i] = `${pairs[i]!.slice(0, eq)}=[redacted]`;
  }
  return `${url.slice(0, query + 1)}${pairs.join('&')}${url.slice(end)}`;
}
