import { systemClock, type Clock } from './clock.js';
import type { Config } from './config/index.js';
import { loadOrCreateMasterKeyFile } from './crypto/master-key.js';
import type { Logger } from './logger.js';
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
  return {
    config,
    store,
    db: store.db,
    clock,
    masterKey,
    keys,
    log,
    close: async () => {
      await store.close();
    },
  };
}
