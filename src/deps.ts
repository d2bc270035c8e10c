import { hostname } from 'node:os';
import { createBlobStore } from './blobs/index.js';
import type { BlobStore } from './blobs/store.js';
import { newUuid } from './crypto/ids.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config/index.js';
import { loadOrCreateMasterKeyFile } from './crypto/master-key.js';
import { deriveKey } from './crypto/derive.js';
import { createLimiter } from './limits/index.js';
import type { RateLimiter } from './limits/limiter.js';
import type { Logger } from './observability/logger.js';
import { createMailer } from './mail/index.js';
import type { Mailer } from './mail/mailer.js';
import { createConfirmationsClient, type ConfirmationsClient } from './providers/confirmations.js';
import { KeyRing, ACCESS_TOKEN_SECONDS } from './services/apps/keys.js';
import { openStore, type Db, type Store } from './store/db.js';
import { createServiceMetrics, type ServiceMetrics } from './observability/service-metrics.js';
import { MailSignal } from './mail/signal.js';
import { tracedBlobStore, tracedMailer } from './observability/tracing.js';
import { TableMetadataCache } from './services/tables/metadata-cache.js';
import { countQueuedDeliveries } from './store/repos/webhook-deliveries.js';

/** Everything the service needs, built once and passed down explicitly: no globals. */
export interface Deps {
  config: Config;
  store: Store;
  db: Db;
  clock: Clock;
  /** The current master key: everything sealed from now on is sealed with it. */
  masterKey: Buffer;
  /** Keys that open sealed secrets: the current one, then MASTER_KEY_PREVIOUS during a rotation. */
  masterKeys: readonly Buffer[];
  keys: KeyRing;
  log: Logger;
  limiter: RateLimiter;
  mailer: Mailer;
  /** The donation-confirmation provider at CONFIRMATIONS_URL (bot sign-up, billing top-ups). */
  confirmations: ConfirmationsClient;
  /** Object bytes: files under a directory or an S3-compatible bucket (BLOB_STORE). */
  blobs: BlobStore;
  /** Keys derived from MASTER_KEY, one per purpose. */
  secrets: {
    /** MACs hashcash challenges (they are self-verifying: nothing is stored until spent). */
    hashcash: Buffer;
    /** HMACs 6-digit codes at rest (a plain hash of a 6-digit code is brute-forced in a blink). */
    codes: Buffer;
    /** MACs custom-table query cursors (opaque and tamper-evident). */
    tablesCursor: Buffer;
    /**
     * MAC refresh tokens (crypto/refresh-tokens.ts): the current key first, then MASTER_KEY_PREVIOUS's
     * during a rotation, so a token issued before it still proves it was issued.
     */
    refreshTokens: Buffer[];
  };
  /** Outage and outbox counters for /metrics. */
  metrics: ServiceMetrics;
  /** Wakes this node's mail worker after an email was queued (services/mail/outbox.ts). */
  mailSignal: MailSignal;
  /** This node's copy of custom tables' metadata, checked against their schema version on use. */
  tableMetadata: TableMetadataCache;
  /** Set on SIGTERM: health answers 503 so load balancers stop sending (main.ts). */
  lifecycle: { draining: boolean };
  /** This process among the nodes: uploads it serves carry it, and it vouches for them (services/objects/upload-sweep.ts). */
  nodeId: string;
  close(): Promise<void>;
}

/** The master key: MASTER_KEY, or on SQLite the generated ./data/master.key (loadConfig refuses PostgreSQL without one). */
export function resolveMasterKey(config: Config, log: Logger): Buffer {
  if (config.masterKey) return config.masterKey;
  return loadOrCreateMasterKeyFile(config.dataDir, (path) =>
    log.warn({ path }, 'MASTER_KEY is not set: generated a master key file; back it up, signing keys cannot be opened without it'),
  );
}

/**
 * `serving`: the dependencies of a server (`gatehouse serve`), which on SQLite checkpoints the write-ahead log
 * from a worker thread (store/sqlite-checkpoints.ts); a CLI command's are not.
 */
export function createDeps(config: Config, log: Logger, options: { clock?: Clock; serving?: boolean } = {}): Deps {
  const clock = options.clock ?? systemClock;
  const metrics = createServiceMetrics();
  const backgroundCheckpoints = options.serving
    ? {
        checkpointed: (frames: number) => metrics.sqliteCheckpointedFrames.inc(frames),
        failed: (error: Error) => log.error({ err: error }, 'SQLite checkpoint thread failed; commits checkpoint again'),
      }
    : undefined;
  const transactionRetries = { retries: config.dbTransactionRetries, contended: (cause: string, outcome: string) => metrics.databaseContended.inc({ cause, outcome }) };
  const store = openStore(config.database, { queryTimeoutMs: config.dbQueryTimeoutMs, poolTimeoutMs: config.dbPoolTimeoutMs, sqliteCacheMb: config.sqliteCacheMb, sqliteWalLimitMb: config.sqliteWalLimitMb, backgroundCheckpoints, transactionRetries });
  const masterKey = resolveMasterKey(config, log);
  // A retired signing key stays published as long as the longest token it may have signed.
  const retiredKeyLifetime = Math.max(ACCESS_TOKEN_SECONDS, config.maxSigninTokenLifetimeSeconds);
  const masterKeys = config.previousMasterKey ? [masterKey, config.previousMasterKey] : [masterKey];
  const keys = new KeyRing(store.db, masterKeys, clock, config.publicBaseUrl, retiredKeyLifetime);
  const limiter = createLimiter(config, { clock, log, keySecret: deriveKey(masterKey, 'rate-limit-keys'), refused: (name) => metrics.ops.rateLimited.inc({ limit: name }) });
  const mailer = tracedMailer(createMailer(config, log));
  const blobs = tracedBlobStore(createBlobStore(config.blobStore, { timeoutMs: config.blobTimeoutMs, log, failed: (operation) => metrics.ops.blobFailures.inc({ operation }) }));
  metrics.ops.watch({ pool: store.poolStats, redis: limiter.redisAvailable });
  metrics.webhooks.watchQueue(() => countQueuedDeliveries(store.db));
  return {
    config,
    store,
    db: store.db,
    clock,
    masterKey,
    masterKeys,
    keys,
    log,
    limiter,
    mailer,
    confirmations: createConfirmationsClient(config.confirmationsUrl),
    secrets: {
      hashcash: deriveKey(masterKey, 'hashcash'),
      codes: deriveKey(masterKey, 'codes'),
      tablesCursor: deriveKey(masterKey, 'tables-cursor'),
      refreshTokens: masterKeys.map((key) => deriveKey(key, 'refresh-tokens')),
    },
    metrics,
    mailSignal: new MailSignal(),
    tableMetadata: new TableMetadataCache(),
    lifecycle: { draining: false },
    nodeId: `${hostname()}:${process.pid}:${newUuid().slice(0, 8)}`,
    blobs,
    close: async () => {
      await Promise.allSettled([limiter.close(), mailer.close({ force: true }), blobs.close()]);
      await store.close();
    },
  };
}
