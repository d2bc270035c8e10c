import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';

// A fetch for requests made on a user's behalf to a host an app's owner chose (a custom OpenID Connect
// issuer and every endpoint its discovery document names): the address is checked after DNS resolution,
// on the very address the socket connects to, so a name that resolves to a private address (or is
// re-pointed there between two lookups) is refused. Loopback is reachable only when the operator allows it
// (OIDC_ALLOW_LOOPBACK_ISSUERS, for tests and local providers); private, link-local, metadata and other
// special-purpose ranges never are.

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24],
  ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE.addSubnet(net, prefix, 'ipv6');
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 one (::ffff:10.0.0.1), else the address itself. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Why the address may not be reached, or null when it may. */
export function refusedAddress(address: string, allowLoopback: boolean): string | null {
  const { address: a, family } = unmapped(address);
  if (LOOPBACK.check(a, family)) return allowLoopback ? null : 'a loopback address';
  if (PRIVATE.check(a, family)) return 'a private or special-purpose address';
  return null;
}

export class RefusedAddressError extends Error {
  readonly code = 'EADDRREFUSED';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function guardedLookup(allowLoopback: boolean) {
  return (hostname: string, options: LookupAllOptions | { all?: boolean; family?: number }, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const bad = addresses.map((a) => refusedAddress(a.address, allowLoopback)).find((reason) => reason !== null);
      if (bad || addresses.length === 0) return callback(new RefusedAddressError(`${hostname} resolves to ${bad ?? 'nothing'}`), []);
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

export interface GuardedFetchInit {
  method?: string;
  headers?: Record<string, string> | Headers;
  body?: string | URLSearchParams | null;
  signal?: AbortSignal | null;
}

/**
 * A fetch (the subset openid-client and the providers use: no redirects followed) that refuses private
 * addresses after resolution. An IP literal is checked before any socket opens.
 */
export function guardedFetch(allowLoopback: boolean) {
  return (input: string | URL, init: GuardedFetchInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal)) {
      const reason = refusedAddress(literal, allowLoopback);
      if (reason) return Promise.reject(new TypeError('fetch failed', { cause: new RefusedAddressError(`${literal} is ${reason}`) }));
    }
    const headers = Object.fromEntries(new Headers(init.headers ?? {}).entries());
    const body = init.body == null ? undefined : String(init.body);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = send(url, { method: init.method ?? 'GET', headers, lookup: guardedLookup(allowLoopback) as never, signal: init.signal ?? undefined }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          // A discovery document, a JWKS or a token answer is a few KiB; a provider sending more is broken.
          if (size > 1024 * 1024) return res.destroy(new Error('the response is larger than 1 MiB'));
          chunks.push(chunk);
        });
        res.on('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
        res.on('end', () => {
          const out = new Headers();
          for (const [key, value] of Object.entries(res.headers)) for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) out.append(key, v);
          const status = res.statusCode ?? 500;
          const payload = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolve(new Response(payload, { status, statusText: res.statusMessage, headers: out }));
        });
      });
      req.on('error', (error) => reject(error.name === 'AbortError' ? error : new TypeError('fetch failed', { cause: error })));
      if (body !== undefined) req.write(body);
      req.end();
    });
  };
}
