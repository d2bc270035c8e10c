import { existsSync } from 'node:fs';
import { parseBillingChains, parseBillingPrices, type BillingPrices } from './billing.js';
import { boolean, ConfigError, integer, parsed, read, url, type Env } from './env.js';
import { parseEmailFrom, parseSmtpUrl } from './mail.js';
import { parsePublicBaseUrl, parseTrustProxy } from './network.js';
import { parseRateLimits, type RateLimits } from './rate-limits.js';
import { parseResilience } from './resilience.js';
import { parseAdminToken, parseMasterKeys } from './secrets.js';
import { parseBlobStore, parseDatabase, type BlobStoreConfig, type DatabaseConfig } from './stores.js';
import { parseWebhooks, type WebhookConfig } from './webhooks.js';

export { ConfigError, type BlobStoreConfig, type DatabaseConfig };

export interface Config extends WebhookConfig {
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
  /** CONSOLE_OPEN_SIGNUP: any console user may create a tenant (POST /v1/tenants); default false, the operator only. */
  consoleOpenSignup: boolean;
  hashcashEnabled: boolean;
  hashcashTtlSeconds: number;
  ssoTokenTtlSeconds: number;
  maxSigninTokenLifetimeSeconds: number;
  confirmationsUrl?: string;
  trustProxy: boolean | number | string[];
  rateLimits: RateLimits;
  googleIssuer: string;
  appleIssuer: string;
  /** GITHUB_URL and GITHUB_API_URL: GitHub's web and REST API bases (a stand-in in tests). */
  githubUrl: string;
  githubApiUrl: string;
  /** MICROSOFT_AUTHORITY: the identity platform's base, before /{tenant}/v2.0. */
  microsoftAuthority: string;
  /** OIDC_ALLOW_LOOPBACK_ISSUERS: custom OpenID Connect issuers may be on loopback (tests, local providers). */
  oidcAllowLoopbackIssuers: boolean;
  /** Where the embedded defaults live (SQLite file, master key, outbox, blobs): ./data. */
  dataDir: string;
  logLevel: string;
  /** BILLING_CHAINS: chains offered for crypto top-ups. */
  billingChains: string[];
  /** BILLING_PRICES: metering prices and free tier. */
  billingPrices: BillingPrices;
  /** Custom-table storage per app unless the app sets its own (TABLES_STORAGE_LIMIT_BYTES, default 100 MiB). */
  tablesStorageLimitBytes: number;
  /** Members per organisation (ORG_MAX_MEMBERS, default 10,000; docs/organizations.md). */
  orgMaxMembers: number;
  /** Resilience (docs/operations.md): query and pool timeouts, the mail outbox, shutdown. */
  dbQueryTimeoutMs: number;
  dbPoolTimeoutMs: number;
  /** Re-runs of a transaction PostgreSQL ended for a deadlock or serialization failure (DB_TRANSACTION_RETRIES, default 3, 0-10). */
  dbTransactionRetries: number;
  /** SQLite's page cache (SQLITE_CACHE_MB, default 32): the most of RSS it may take; see store/db.ts. */
  sqliteCacheMb: number;
  sqliteWalLimitMb: number;
  mailSendTimeoutMs: number;
  mailGiveUpSeconds: number;
  /** One blob store call: connecting, and silence on a request's connection; a whole GetObject's answer or DeleteObject. */
  blobTimeoutMs: number;
  /** An upload whose node has not vouched for it this long is released (its node is gone); nodes vouch every third of it. */
  uploadStaleSeconds: number;
  /** Every `serve` node writes its release record this often; a node silent for three beats is not live (services/nodes.ts). */
  nodeHeartbeatSeconds: number;
  /** A deleted object's blob stays this long before the sweep removes it, so a backup taken meanwhile still finds it (docs/operations.md, "Backups"). */
  blobDeletionGraceSeconds: number;
  shutdownGraceSeconds: number;
  shutdownDrainSeconds: number;
  /** Largest single object (OBJECTS_MAX_BYTES). */
  objectsMaxBytes: number;
  /** Per-app object storage unless the app sets its own (OBJECTS_STORAGE_LIMIT_BYTES). */
  objectsStorageLimitBytes: number;
  /** Rows a statement of a deleted app's purge removes, each batch its own transaction (APP_PURGE_BATCH_SIZE). */
  appPurgeBatchSize: number;
  /** Events older than this many days, and their finished deliveries and daily counts, are pruned (docs/events.md). */
  eventsRetentionDays: number;
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
  const { masterKey, previousMasterKey } = parseMasterKeys(env, database);
  const rateLimits = parsed('RATE_LIMITS', parseRateLimits, env);
  const publicBaseUrl = parsePublicBaseUrl(env, host, port, database, options.serve === true);
  const adminToken = parseAdminToken(env);
  const smtpUrl = parseSmtpUrl(env, database);
  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', 'must be one of fatal, error, warn, info, debug, trace, silent');
  }
  const billingChains = parsed('BILLING_CHAINS', parseBillingChains, env);
  const billingPrices = parsed('BILLING_PRICES', parseBillingPrices, env);
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
    consoleOpenSignup: boolean(env, 'CONSOLE_OPEN_SIGNUP', false),
    hashcashEnabled: boolean(env, 'HASHCASH_ENABLED', true),
    hashcashTtlSeconds: integer(env, 'HASHCASH_TTL_SECONDS', 300, 1, 86_400),
    ssoTokenTtlSeconds: integer(env, 'SSO_TOKEN_TTL_SECONDS', 60, 1, 3_600),
    maxSigninTokenLifetimeSeconds: integer(env, 'MAX_SIGNIN_TOKEN_LIFETIME_SECONDS', 3_600, 60, 30 * 86_400),
    confirmationsUrl: url(env, 'CONFIRMATIONS_URL', ['http:', 'https:']),
    trustProxy: parseTrustProxy(env),
    rateLimits,
    googleIssuer: url(env, 'GOOGLE_ISSUER', ['http:', 'https:']) ?? 'https://accounts.google.com',
    appleIssuer: url(env, 'APPLE_ISSUER', ['http:', 'https:']) ?? 'https://appleid.apple.com',
    githubUrl: url(env, 'GITHUB_URL', ['http:', 'https:']) ?? 'https://github.com',
    githubApiUrl: url(env, 'GITHUB_API_URL', ['http:', 'https:']) ?? 'https://api.github.com',
    microsoftAuthority: url(env, 'MICROSOFT_AUTHORITY', ['http:', 'https:']) ?? 'https://login.microsoftonline.com',
    oidcAllowLoopbackIssuers: boolean(env, 'OIDC_ALLOW_LOOPBACK_ISSUERS', false),
    dataDir: './data',
    logLevel,
    billingChains,
    billingPrices,
    tablesStorageLimitBytes: integer(env, 'TABLES_STORAGE_LIMIT_BYTES', 100 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    objectsMaxBytes: integer(env, 'OBJECTS_MAX_BYTES', 50 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    objectsStorageLimitBytes: integer(env, 'OBJECTS_STORAGE_LIMIT_BYTES', 1024 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    appPurgeBatchSize: integer(env, 'APP_PURGE_BATCH_SIZE', 500, 1, 10_000),
    orgMaxMembers: integer(env, 'ORG_MAX_MEMBERS', 10_000, 1, 1_000_000),
    eventsRetentionDays: integer(env, 'EVENTS_RETENTION_DAYS', 90, 1, 36_500),
    ...parseResilience(env),
    ...parseWebhooks(env),
  };
}

/** Reads `.env` from the working directory into the environment (existing variables win). */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
