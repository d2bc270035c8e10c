import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Envelope encryption of secrets at rest with MASTER_KEY: AES-256-GCM, a fresh 96-bit IV each time,
 * and associated data that binds the ciphertext to its row (a key copied to another app will not open).
 * Format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export function seal(masterKey: Buffer, plaintext: string, associatedData: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  cipher.setAAD(Buffer.from(associatedData));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/**
 * Opens what seal() made with any of `keys` (the current master key first, then MASTER_KEY_PREVIOUS
 * while a rotation runs); throws when no key opens it or the data or binding is wrong.
 */
export function open(keys: Buffer | readonly Buffer[], sealed: string, associatedData: string): string {
  const candidates = Buffer.isBuffer(keys) ? [keys] : keys;
  let failure: unknown = new Error('no master key');
  for (const key of candidates) {
    try {
      return openWith(key, sealed, associatedData);
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

function openWith(masterKey: Buffer, sealed: string, associatedData: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unknown envelope format');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
