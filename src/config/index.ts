import { existsSync } from 'node:fs';
import { parseRateLimits, type RateLimits } from './rate-limits.js';
import { parseBillingChains, parseBillingPrices, type BillingPrices } from './billing.js';

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };
export type BlobStoreConfig =
  | { kind: 'file'; dir: string }
  | { kind: 's3'; bucket: string; endpoint?: string; region?: string; forcePathStyle: boolean };

export interface Config {
  port: number;
  host: string;
  database: DatabaseConfig;
  redisUrl?: string;
  blobStore: BlobStoreConfig;
  publicBaseUrl: string;
  smtpUrl?: string;
  emailFrom: string;
  /** Raw MASTER_KEY (validated: 32 bytes of base64); unset on SQLite means "use ./data/master.key". */
  masterKey?: Buffer;
  /** MASTER_KEY_PREVIOUS: during a master-key rotation, opens what the old key sealed. */
  previousMasterKey?: Buffer;
  adminToken?: string;
  hashcashEnabled: boolean;
  hashcashTtlSeconds: number;
  ssoTokenTtlSeconds: number;
  maxSigninTokenLifetimeSeconds: number;
  confirmationsUrl?: string;
  trustProxy: boolean | number | string[];
  rateLimits: RateLimits;
  googleIssuer: string;
  appleIssuer: string;
  /** Where the embedded defaults live (SQLite file, master key, outbox, blobs): ./data. */
  dataDir: string;
  logLevel: string;
  /** BILLING_CHAINS: chains offered for crypto top-ups. */
  billingChains: string[];
  /** BILLING_PRICES: metering prices and free tier. */
  billingPrices: BillingPrices;
  /** Custom-table storage per app unless the app sets its own (TABLES_STORAGE_LIMIT_BYTES, default 100 MiB). */
  tablesStorageLimitBytes: number;
  /** Resilience (docs/operations.md): query and pool timeouts, the mail outbox, shutdown. */
  dbQueryTimeoutMs: number;
  dbPoolTimeoutMs: number;
  /** SQLite's page cache (SQLITE_CACHE_MB, default 32): the most of RSS it may take; see store/db.ts. */
  sqliteCacheMb: number;
  sqliteWalLimitMb: number;
  mailSendTimeoutMs: number;
  mailGiveUpSeconds: number;
  /** One blob store call: connecting, and silence on a request's connection; a whole GetObject's answer or DeleteObject. */
  blobTimeoutMs: number;
  /** An upload whose node has not vouched for it this long is released (its node is gone); nodes vouch every third of it. */
  uploadStaleSeconds: number;
  shutdownGraceSeconds: number;
  shutdownDrainSeconds: number;
  /** Largest single object (OBJECTS_MAX_BYTES). */
  objectsMaxBytes: number;
  /** Per-app object storage unless the app sets its own (OBJECTS_STORAGE_LIMIT_BYTES). */
  objectsStorageLimitBytes: number;
  /** Rows a statement of a deleted app's purge removes, each batch its own transaction (APP_PURGE_BATCH_SIZE). */
  appPurgeBatchSize: number;
}

/** A configuration error names the variable, so start-up can say exactly what to fix. */
export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
  }
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw.replace(/\/+$/, '');
}

function parseDatabase(env: Env): DatabaseConfig {
  const raw = read(env, 'DATABASE_URL') ?? 'sqlite:./data/gatehouse.db';
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/gatehouse.db');
    return { kind: 'sqlite', path };
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url: raw };
  }
  throw new ConfigError('DATABASE_URL', 'must start with sqlite: or postgres://');
}

function parseBlobStore(env: Env): BlobStoreConfig {
  const raw = read(env, 'BLOB_STORE') ?? 'file:./data/blobs';
  if (raw.startsWith('file:')) {
    const dir = raw.slice('file:'.length);
    if (!dir) throw new ConfigError('BLOB_STORE', 'file: needs a directory');
    return { kind: 'file', dir };
  }
  if (raw.startsWith('s3://')) {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError('BLOB_STORE', 'is not a valid s3://BUCKET?endpoint=URL&region=R address');
    }
    if (!parsed.hostname) throw new ConfigError('BLOB_STORE', 's3:// needs a bucket name');
    const endpoint = parsed.searchParams.get('endpoint') ?? undefined;
    if (endpoint !== undefined) {
      try {
        new URL(endpoint);
      } catch {
        throw new ConfigError('BLOB_STORE', 'endpoint is not a valid URL');
      }
    }
    const pathStyle = parsed.searchParams.get('force_path_style');
    if (pathStyle !== null && !['true', 'false'].includes(pathStyle)) throw new ConfigError('BLOB_STORE', 'force_path_style must be true or false');
    return {
      kind: 's3',
      bucket: parsed.hostname,
      endpoint,
      region: parsed.searchParams.get('region') ?? undefined,
      forcePathStyle: pathStyle === 'true',
    };
  }
  throw new ConfigError('BLOB_STORE', 'must start with file: or s3://');
}

function parseMasterKey(env: Env, name = 'MASTER_KEY'): Buffer | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)) throw new ConfigError(name, 'must be base64');
  const key = Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== 32) throw new ConfigError(name, `must decode to 32 bytes, got ${key.length}`);
  return key;
}

function parseTrustProxy(env: Env): boolean | number | string[] {
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

function parseEmailFrom(env: Env): string {
  const raw = read(env, 'EMAIL_FROM') ?? 'Gatehouse <no-reply@localhost>';
  if (!/^(?:[^<>@]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/.test(raw)) {
    throw new ConfigError('EMAIL_FROM', 'must be an address, e.g. "Gatehouse <no-reply@example.com>"');
  }
  return raw;
}

/**
 * Reads and validates every variable of docs/operations.md. The only reader of the environment:
 * everything else receives the Config. Throws ConfigError naming the first bad variable. `serve` also
 * requires what only a server needs (PUBLIC_BASE_URL on PostgreSQL).
 */
export function loadConfig(env: Env = process.env, options: { serve?: boolean } = {}): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = read(env, 'HOST') ?? '127.0.0.1';
  const database = parseDatabase(env);
  const masterKey = parseMasterKey(env);
  const previousMasterKey = parseMasterKey(env, 'MASTER_KEY_PREVIOUS');
  if (previousMasterKey && !masterKey) throw new ConfigError('MASTER_KEY_PREVIOUS', 'needs MASTER_KEY (the new key) beside it');
  if (previousMasterKey && masterKey?.equals(previousMasterKey)) throw new ConfigError('MASTER_KEY_PREVIOUS', 'is the same key as MASTER_KEY');
  if (database.kind === 'postgres' && !masterKey) {
    throw new ConfigError('MASTER_KEY', 'is required with PostgreSQL (every node must share it); generate one with: openssl rand -base64 32');
  }
  let rateLimits: RateLimits;
  try {
    rateLimits = parseRateLimits(read(env, 'RATE_LIMITS'));
  } catch (error) {
    throw new ConfigError('RATE_LIMITS', (error as Error).message);
  }
  const publicBaseUrl = url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // The tokens' issuer: derived from HOST and PORT, a moved port would void every outstanding token, and
  // nodes behind one load balancer would disagree. SQLite (one node, a laptop) keeps the derived default.
  if (options.serve && database.kind === 'postgres' && !read(env, 'PUBLIC_BASE_URL')) {
    throw new ConfigError('PUBLIC_BASE_URL', "is required with PostgreSQL: it is the tokens' issuer and the base of emailed links, the same on every node (e.g. https://auth.example.com)");
  }
  const adminToken = read(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 32) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 32 characters');
  }
  // SMTP_URL=log: chooses the log outbox on purpose; PostgreSQL means production, where codes and links
  // must never end up in logs by accident.
  const smtpToLog = read(env, 'SMTP_URL')?.toLowerCase() === 'log:';
  const smtpUrl = smtpToLog ? undefined : url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  if (database.kind === 'postgres' && !smtpUrl && !smtpToLog) {
    throw new ConfigError(
      'SMTP_URL',
      'is required with PostgreSQL (smtp://user:pass@host:port), so codes and links never go to the log by accident; set SMTP_URL=log: to write emails to the log on purpose',
    );
  }
  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', 'must be one of fatal, error, warn, info, debug, trace, silent');
  }
  let billingChains: string[];
  let billingPrices: BillingPrices;
  try {
    billingChains = parseBillingChains(read(env, 'BILLING_CHAINS'));
  } catch (error) {
    throw new ConfigError('BILLING_CHAINS', (error as Error).message);
  }
  try {
    billingPrices = parseBillingPrices(read(env, 'BILLING_PRICES'));
  } catch (error) {
    throw new ConfigError('BILLING_PRICES', (error as Error).message);
  }
  return {
    port,
    host,
    database,
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    blobStore: parseBlobStore(env),
    publicBaseUrl,
    smtpUrl,
    emailFrom: parseEmailFrom(env),
    masterKey,
    previousMasterKey,
    adminToken,
    hashcashEnabled: boolean(env, 'HASHCASH_ENABLED', true),
    hashcashTtlSeconds: integer(env, 'HASHCASH_TTL_SECONDS', 300, 1, 86_400),
    ssoTokenTtlSeconds: integer(env, 'SSO_TOKEN_TTL_SECONDS', 60, 1, 3_600),
    maxSigninTokenLifetimeSeconds: integer(env, 'MAX_SIGNIN_TOKEN_LIFETIME_SECONDS', 3_600, 60, 30 * 86_400),
    confirmationsUrl: url(env, 'CONFIRMATIONS_URL', ['http:', 'https:']),
    trustProxy: parseTrustProxy(env),
    rateLimits,
    googleIssuer: url(env, 'GOOGLE_ISSUER', ['http:', 'https:']) ?? 'https://accounts.google.com',
    appleIssuer: url(env, 'APPLE_ISSUER', ['http:', 'https:']) ?? 'https://appleid.apple.com',
    dataDir: './data',
    logLevel,
    billingChains,
    billingPrices,
    tablesStorageLimitBytes: integer(env, 'TABLES_STORAGE_LIMIT_BYTES', 100 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    objectsMaxBytes: integer(env, 'OBJECTS_MAX_BYTES', 50 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    objectsStorageLimitBytes: integer(env, 'OBJECTS_STORAGE_LIMIT_BYTES', 1024 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    appPurgeBatchSize: integer(env, 'APP_PURGE_BATCH_SIZE', 500, 1, 10_000),
    ...parseResilience(env),
  };
}

function parseResilience(env: Env) {
  const shutdownGraceSeconds = integer(env, 'SHUTDOWN_GRACE_SECONDS', 25, 1, 3_600);
  const shutdownDrainSeconds = integer(env, 'SHUTDOWN_DRAIN_SECONDS', 0, 0, 3_600);
  if (shutdownDrainSeconds >= shutdownGraceSeconds) {
    throw new ConfigError('SHUTDOWN_DRAIN_SECONDS', `must be less than SHUTDOWN_GRACE_SECONDS (${shutdownGraceSeconds})`);
  }
  return {
    dbQueryTimeoutMs: integer(env, 'DB_QUERY_TIMEOUT_MS', 5_000, 100, 600_000),
    dbPoolTimeoutMs: integer(env, 'DB_POOL_TIMEOUT_MS', 5_000, 100, 600_000),
    sqliteCacheMb: integer(env, 'SQLITE_CACHE_MB', 32, 1, 4_096),
    sqliteWalLimitMb: integer(env, 'SQLITE_WAL_LIMIT_MB', 64, 4, 65_536),
    mailSendTimeoutMs: integer(env, 'MAIL_SEND_TIMEOUT_MS', 30_000, 500, 600_000),
    mailGiveUpSeconds: integer(env, 'MAIL_GIVE_UP_SECONDS', 3_600, 1, 7 * 86_400),
    blobTimeoutMs: integer(env, 'BLOB_TIMEOUT_MS', 20_000, 100, 600_000),
    uploadStaleSeconds: integer(env, 'UPLOAD_STALE_SECONDS', 120, 3, 3_600),
    shutdownGraceSeconds,
    shutdownDrainSeconds,
  };
}

/** Reads `.env` from the working directory into the environment (existing variables win). */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
