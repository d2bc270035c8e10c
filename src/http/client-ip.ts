import { isIPv6 } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { ClientInfo } from '../services/sessions/sessions.js';

/** Longest user agent kept on a session: enough to tell browsers apart, bounded whatever a client sends. */
const USER_AGENT_MAX = 512;

/** The client a session is opened for: its User-Agent (bounded) and IP (as TRUST_PROXY resolves it). */
export function clientInfo(request: FastifyRequest): ClientInfo {
  const agent = request.headers['user-agent'];
  return { userAgent: typeof agent === 'string' && agent !== '' ? agent.slice(0, USER_AGENT_MAX) : null, ip: request.ip ?? null };
}

/**
 * The client's key in per-IP rate-limit windows. IPv4 addresses count one by one; an IPv6 client counts
 * per /64, since one subscriber usually holds a whole /64 and could otherwise rotate through 2^64
 * addresses to escape every per-IP window. IPv4-mapped IPv6 (`::ffff:1.2.3.4`) counts as its IPv4.
 */
export function rateLimitIp(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1];
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, in lower-case hex without leading zeros. */
function expandIPv6(ip: string): string[] {
  const address = ip.split('%')[0].toLowerCase();
  let tail = address;
  // An embedded IPv4 tail (::1.2.3.4 forms) becomes two groups.
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    tail = address.slice(0, v4.index) + ((a << 8) | b).toString(16) + ':' + ((c << 8) | d).toString(16);
  }
  const [head, rest] = tail.split('::');
  const left = head ? head.split(':') : [];
  const right = rest === undefined ? [] : rest ? rest.split(':') : [];
  const missing = 8 - left.length - right.length;
  const groups = rest === undefined ? left : [...left, ...Array(missing).fill('0'), ...right];
  return groups.map((g) => parseInt(g, 16).toString(16));
}
