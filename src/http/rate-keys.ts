import { normalizeEmail } from '../services/credentials.js';
import { rateLimitIp } from './client-ip.js';

// Keys of the per-email rate-limit windows, normalized so `Ann@Example.com` and `ann@example.com` share
// their windows. The limiter stores a key that holds an address as an HMAC of it (limits/index.ts,
// storedKey: docs/privacy.md), so no address reaches Redis.

/** `{app}:{email}`: a per-email window. */
export function emailWindowKey(appId: string, email: string): string {
  return `${appId}:${normalizeEmail(email)}`;
}

/** `{app}:{email}:{client IP or /64}`: a per-(email, IP) window. */
export function emailIpWindowKey(appId: string, email: string, ip: string): string {
  return `${emailWindowKey(appId, email)}:${rateLimitIp(ip)}`;
}
