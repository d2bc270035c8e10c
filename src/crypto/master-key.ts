import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The embedded default's master key: created exclusively (mode 0600) under the data directory on first
 * use, read back afterwards. `onCreate` lets the caller warn that the key file must be backed up.
 */
export function loadOrCreateMasterKeyFile(dataDir: string, onCreate: (path: string) => void): Buffer {
  const path = join(dataDir, 'master.key');
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(path, randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
    onCreate(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${path} does not hold 32 bytes of base64`);
  return key;
}

/**
 * The check value a database keeps of its master key: an HMAC-SHA256 of a fixed label under the key. It
 * tells whether a key is the database's without storing the key or anything it could be recovered from.
 */
export function masterKeyCheck(key: Buffer): string {
  return createHmac('sha256', key).update('gatehouse master-key check v1').digest('base64url');
}
