import { ConfigError, read, url, type Env } from './env.js';
import type { DatabaseConfig } from './stores.js';

// PUBLIC_BASE_URL and TRUST_PROXY: how the server is reached, and which proxies it believes.

/**
 * The tokens' issuer and the base of emailed links. Derived from HOST and PORT, a moved port would void
 * every outstanding token, and nodes behind one load balancer would disagree: a server on PostgreSQL
 * needs it set. SQLite (one node, a laptop) keeps the derived default.
 */
export function parsePublicBaseUrl(env: Env, host: string, port: number, database: DatabaseConfig, serve: boolean): string {
  const publicBaseUrl = url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (serve && database.kind === 'postgres' && !read(env, 'PUBLIC_BASE_URL')) {
    throw new ConfigError('PUBLIC_BASE_URL', "is required with PostgreSQL: it is the tokens' issuer and the base of emailed links, the same on every node (e.g. https://auth.example.com)");
  }
  return publicBaseUrl;
}

export function parseTrustProxy(env: Env): boolean | number | string[] {
  const raw = read(env, 'TRUST_PROXY');
  if (raw === undefined || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const parts = raw.split(',').map((p) => p.trim()).filter(Boolean);
  for (const part of parts) {
    if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(part) && !['loopback', 'linklocal', 'uniquelocal'].includes(part)) {
      throw new ConfigError('TRUST_PROXY', `"${part}" is not true, false, a hop count, or an address/CIDR`);
    }
  }
  return parts;
}
