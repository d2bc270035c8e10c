import { hash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniform random base62 text (rejection-free: randomInt is unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export const newTenantId = () => `ten_${randomBase62(20)}`;
export const newAppId = () => `app_${randomBase62(20)}`;
export const newPublishableKey = () => `pk_${randomBase62(32)}`;
export const newSecretKey = () => `sk_${randomBase62(48)}`;
export const newUuid = () => randomUUID();

/** An opaque bearer token: prefix + 43 base64url chars (256 bits). Store only its sha256. */
export const newOpaqueToken = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

/** A uniformly random 6-digit code, leading zeros kept. */
export const newSixDigitCode = () => String(randomInt(1_000_000)).padStart(6, '0');

/** One-shot crypto.hash: about a third of createHash().update().digest()'s cost (no Hash object); every key and token lookup hashes. */
export const sha256Hex = (value: string | Buffer) => hash('sha256', value, 'hex');

/** Constant-time comparison of two strings (lengths compared through their digests). */
export function safeEqual(a: string, b: string): boolean {
  const da = hash('sha256', a, 'buffer');
  const db = hash('sha256', b, 'buffer');
  return timingSafeEqual(da, db) && a.length === b.length;
}
