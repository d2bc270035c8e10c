import { createHmac, hkdfSync } from 'node:crypto';

/** A purpose-bound key derived from MASTER_KEY (HKDF-SHA256): one secret, independent keys per use. */
export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `gatehouse:${purpose}`, 32));
}

/** HMAC-SHA256 hex of `value`: for short secrets (6-digit codes) whose plain hash could be brute-forced offline. */
export function hmacHex(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}
