import { randomBytes } from 'node:crypto';
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
