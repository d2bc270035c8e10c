import { ConfigError, read, type Env } from './env.js';
import type { DatabaseConfig } from './stores.js';

// MASTER_KEY, MASTER_KEY_PREVIOUS and ADMIN_TOKEN.

function parseMasterKey(env: Env, name = 'MASTER_KEY'): Buffer | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)) throw new ConfigError(name, 'must be base64');
  const key = Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== 32) throw new ConfigError(name, `must decode to 32 bytes, got ${key.length}`);
  return key;
}

/** MASTER_KEY and, during a rotation, MASTER_KEY_PREVIOUS; PostgreSQL needs MASTER_KEY (every node must share it). */
export function parseMasterKeys(env: Env, database: DatabaseConfig): { masterKey: Buffer | undefined; previousMasterKey: Buffer | undefined } {
  const masterKey = parseMasterKey(env);
  const previousMasterKey = parseMasterKey(env, 'MASTER_KEY_PREVIOUS');
  if (previousMasterKey && !masterKey) throw new ConfigError('MASTER_KEY_PREVIOUS', 'needs MASTER_KEY (the new key) beside it');
  if (previousMasterKey && masterKey?.equals(previousMasterKey)) throw new ConfigError('MASTER_KEY_PREVIOUS', 'is the same key as MASTER_KEY');
  if (database.kind === 'postgres' && !masterKey) {
    throw new ConfigError('MASTER_KEY', 'is required with PostgreSQL (every node must share it); generate one with: openssl rand -base64 32');
  }
  return { masterKey, previousMasterKey };
}

export function parseAdminToken(env: Env): string | undefined {
  const adminToken = read(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 32) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 32 characters');
  }
  return adminToken;
}
