import { createPublicKey, verify, type KeyObject } from 'node:crypto';

// Bot keys: raw 32-byte Ed25519 public keys, sent as base64 (docs/api.md and docs/bots.md).

export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

/** DER header of an SPKI Ed25519 public key (RFC 8410); the raw 32 bytes follow it. */
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * The raw key when `text` is strict base64 of exactly 32 bytes, else undefined. Strict means it
 * re-encodes to the same text: Node's decoder ignores junk, missing padding and stray low bits, and
 * accepting those would give one key many spellings (uniqueness is on the bytes, so only one may pass).
 */
export function decodePublicKey(text: string): Buffer | undefined {
  const raw = Buffer.from(text, 'base64');
  if (raw.length !== ED25519_PUBLIC_KEY_BYTES || raw.toString('base64') !== text) return undefined;
  return raw;
}

/** A KeyObject for a raw 32-byte Ed25519 public key, or undefined when OpenSSL refuses it. */
export function publicKeyFromRaw(raw: Buffer): KeyObject | undefined {
  try {
    return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

/** True when `signature` (64 bytes) is `publicKey`'s Ed25519 signature of the UTF-8 `message`. */
export function verifyEd25519(publicKey: KeyObject, message: string, signature: Buffer): boolean {
  if (signature.length !== ED25519_SIGNATURE_BYTES) return false;
  try {
    return verify(null, Buffer.from(message, 'utf8'), publicKey, signature);
  } catch {
    return false;
  }
}
