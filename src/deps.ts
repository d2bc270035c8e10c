import { systemClock, type Clock } from './clock.js';
import type { Config } from './config/index.js';
import { loadOrCreateMasterKeyFile } from './crypto/master-key.js';
import { deriveKey } from './crypto/derive.js';
import { createLimiter } from './limits/index.js';
import type { RateLimiter } from './limits/limiter.js';
import type { Logger } from './logger.js';
import { createMailer } from './mail/index.js';
import type { Mailer } from './mail/mailer.js';
import { createConfirmationsClient, type ConfirmationsClient } from './providers/confirmations.js';
import { KeyRing, ACCESS_TOKEN_SECONDS } from './services/keys.js';
import { openStore, type Db, type Store } from './store/db.js';

/** Everything the service needs, built once and passed down explicitly: no globals. */
export interface Deps {
  config: Config;
  store: Store;
  db: Db;
  clock: Clock;
  masterKey: Buffer;
  keys: KeyRing;
  log: Logger;
  limiter: RateLimiter;
  mailer: Mailer;
  /** The donation-confirmation provider at CONFIRMATIONS_URL (bot sign-up, billing top-ups). */
  confirmations: ConfirmationsClient;
  /** Keys derived from MASTER_KEY, one per purpose. */
  secrets: {
    /** MACs hashcash challenges (they are self-verifying: nothing is stored until spent). */
    hashcash: Buffer;
    /** HMACs 6-digit codes at rest (a plain hash of a 6-digit code is brute-forced in a blink). */
    codes: Buffer;
  };
  close(): Promise<void>;
}

/** The master key: MASTER_KEY, or on SQLite the generated ./data/master.key (loadConfig refuses PostgreSQL without one). */
export function resolveMasterKey(config: Config, log: Logger): Buffer {
  if (config.masterKey) return config.masterKey;
  return loadOrCreateMasterKeyFile(config.dataDir, (path) =>
    log.warn({ path }, 'MASTER_KEY is not set: generated a master key file; back it up, signing keys cannot be opened without it'),
  );
}

export function createDeps(config: Config, log: Logger, options: { clock?: Clock } = {}): Deps {
  const clock = options.clock ?? systemClock;
  const store = openStore(config.database);
  const masterKey = resolveMasterKey(config, log);
  // A retired signing key stays published as long as the longest token it may have signed.
  const retiredKeyLifetime = Math.max(ACCESS_TOKEN_SECONDS, config.maxSigninTokenLifetimeSeconds);
  const keys = new KeyRing(store.db, masterKey, clock, config.publicBaseUrl, retiredKeyLifetime);
  const limiter = createLimiter(config, { clock, log });
  const mailer = createMailer(config, log);
  return {
    config,
    store,
    db: store.db,
    clock,
    masterKey,
    keys,
    log,
    limiter,
    mailer,
    confirmations: createConfirmationsClient(config.confirmationsUrl),
    secrets: { hashcash: deriveKey(masterKey, 'hashcash'), codes: deriveKey(masterKey, 'codes') },
    close: async () => {
      await Promise.allSettled([limiter.close(), mailer.close()]);
      await store.close();
    },
  };
}
