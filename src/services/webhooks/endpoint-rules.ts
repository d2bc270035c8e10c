import { badRequest } from '../../errors.js';
import { bareHost, isPrivateAddress, resolvePublicAddress, RefusedAddress } from './address-guard.js';
import { isIP } from 'node:net';

// What an endpoint may be: its URL (https, a public host) and its event_types entries.

export const MAX_ENDPOINTS_PER_APP = 20;
const MAX_URL_LENGTH = 2048;
const TYPE_PATTERN = /^(?:\*|[a-z][a-z_]*(?:\.[a-z][a-z_]*)*(?:\.\*)?)$/;

/**
 * 400 `webhook_url_refused` unless `raw` is an https URL without credentials whose host is not, and does not
 * resolve to, a private address (http and private hosts pass with WEBHOOK_ALLOW_PRIVATE=true). A name that
 * does not resolve yet passes: every attempt resolves and checks it again.
 */
export async function checkEndpointUrl(raw: string, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('url is not a valid URL', 'webhook_url_refused');
  }
  if (raw.length > MAX_URL_LENGTH) throw badRequest(`url is longer than ${MAX_URL_LENGTH} characters`, 'webhook_url_refused');
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) throw badRequest('url must use https', 'webhook_url_refused');
  if (url.username || url.password) throw badRequest('url must not carry a user name or password', 'webhook_url_refused');
  if (url.hash) throw badRequest('url must not have a fragment', 'webhook_url_refused');
  if (!allowPrivate) {
    const host = bareHost(url.hostname);
    if (isIP(host) ? isPrivateAddress(host) : host === 'localhost' || host.endsWith('.localhost')) {
      throw badRequest('url must not name a loopback, private, link-local or metadata address', 'webhook_url_refused');
    }
    try {
      await resolvePublicAddress(host, false);
    } catch (error) {
      if (error instanceof RefusedAddress) throw badRequest(`url is refused: ${error.message}`, 'webhook_url_refused');
      // Not resolvable now (ENOTFOUND, a resolver outage): each attempt checks the address it connects to.
    }
  }
  return url.href;
}

/** The entries as given, each a type, a prefix (`user.*`) or `*`; 400 for anything else. */
export function checkEventTypes(types: string[]): string[] {
  if (types.length === 0) throw badRequest('event_types must name at least one type (or "*")');
  if (types.length > 100) throw badRequest('event_types holds at most 100 entries');
  for (const type of types) {
    if (type.length > 100 || !TYPE_PATTERN.test(type)) throw badRequest(`event_types: "${type.slice(0, 100)}" is not a type, a prefix such as "user.*", or "*"`);
  }
  return [...new Set(types)];
}

/**
 * The entries that select an event of `type`: the type itself, each prefix (`organization.*`,
 * `organization.membership.*`), and `*`, which selects every type but signin.failed (sent only to endpoints
 * that name it, by type or prefix).
 */
export function patternsFor(type: string): string[] {
  const parts = type.split('.');
  const patterns = [type];
  for (let i = 1; i < parts.length; i++) patterns.push(`${parts.slice(0, i).join('.')}.*`);
  if (type !== 'signin.failed') patterns.push('*');
  return patterns;
}
