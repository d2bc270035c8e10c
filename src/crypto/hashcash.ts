import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hashRaw, type Algorithm, type Version } from '@node-rs/argon2';

// Algorithm and Version are const enums: empty objects at run time when a file is transpiled on its own (vitest).
const ARGON2ID = 2 as Algorithm.Argon2id;
/** Argon2 version 0x13, pinned rather than left to the library's default. */
const V0X13 = 1 as Version.V0x13;

// Hashcash proof-of-work (docs/hashcash.md): the challenge format, its MAC, and the proof hash.
// Pure functions: no clock, no database; the service decides what a failed check means.

/** Argon2id parameters of every challenge (contract defaults; the wire names of the challenge object). */
export const HASHCASH_PARAMS = { time_cost: 1, memory_cost: 8192, parallelism: 1, hash_len: 32 } as const;

export type HashcashParams = typeof HASHCASH_PARAMS;

/** Format version: a change of the params or layout gets a new one, so old challenges fail cleanly. */
const VERSION = 'v1';

/** A nonce is 1-64 characters (code points, as JSON Schema counts them). */
export const NONCE_MAX = 64;

/** Far above any challenge we issue (~110 chars): refuses huge inputs before any HMAC work. */
const CHALLENGE_MAX = 256;

/** What a challenge binds; all of it is covered by the MAC. */
export interface ChallengeFields {
  appId: string;
  /** Issue time, milliseconds since the epoch (ms, so a 1-second TTL means a full second). */
  issuedAtMs: number;
  difficulty: number;
}

const APP_ID = /^app_[A-Za-z0-9]{1,64}$/;
const LAYOUT = /^v1\.(app_[A-Za-z0-9]{1,64})\.(\d{1,15})\.(\d{1,2})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

function mac(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

/**
 * A new self-verifying challenge: `v1.<app_id>.<issued_at_ms>.<difficulty>.<random>.<mac>`, the MAC an
 * HMAC-SHA256 (base64url) of everything before it. Nothing is stored: the MAC is the server's memory.
 */
export function encodeChallenge(key: Buffer, fields: ChallengeFields, random: Buffer = randomBytes(16)): string {
  if (!APP_ID.test(fields.appId)) throw new Error(`not an app id: ${fields.appId}`);
  if (!Number.isInteger(fields.difficulty) || fields.difficulty < 0 || fields.difficulty > 32) throw new Error('difficulty must be 0-32');
  if (!Number.isSafeInteger(fields.issuedAtMs) || fields.issuedAtMs < 0) throw new Error('issuedAtMs must be a non-negative integer');
  if (random.length !== 16) throw new Error('random part must be 16 bytes');
  const body = [VERSION, fields.appId, fields.issuedAtMs, fields.difficulty, random.toString('base64url')].join('.');
  return `${body}.${mac(key, body).toString('base64url')}`;
}

/**
 * The fields of a challenge this server made, or undefined when its shape or MAC is wrong (forged,
 * truncated, edited, from another deployment or an older format version).
 */
export function decodeChallenge(key: Buffer, challenge: string): ChallengeFields | undefined {
  if (challenge.length > CHALLENGE_MAX) return undefined;
  const match = LAYOUT.exec(challenge);
  if (!match) return undefined;
  const [, appId, issuedAt, difficulty, , tag] = match;
  const body = challenge.slice(0, challenge.lastIndexOf('.'));
  // Compared as text, not as decoded bytes: base64url's last character carries spare bits, and a
  // second spelling of the same MAC would be a second challenge for the spent-once check.
  const expected = Buffer.from(mac(key, body).toString('base64url'));
  const given = Buffer.from(tag);
  // Constant time, so the MAC cannot be guessed byte by byte from response timing.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const fields = { appId, issuedAtMs: Number(issuedAt), difficulty: Number(difficulty) };
  if (fields.difficulty > 32) return undefined;
  return fields;
}

/** Whether the nonce has an acceptable length: 1-64 characters. */
export function validNonce(nonce: string): boolean {
  const length = Array.from(nonce).length;
  return length >= 1 && length <= NONCE_MAX;
}

/** H = argon2id(password = UTF-8(challenge + ":" + nonce), salt = UTF-8(challenge), params): one hash. */
export function proofHash(challenge: string, nonce: string, params: HashcashParams = HASHCASH_PARAMS): Promise<Buffer> {
  return hashRaw(Buffer.from(`${challenge}:${nonce}`, 'utf8'), {
    algorithm: ARGON2ID,
    version: V0X13,
    timeCost: params.time_cost,
    memoryCost: params.memory_cost,
    parallelism: params.parallelism,
    outputLen: params.hash_len,
    salt: Buffer.from(challenge, 'utf8'),
  });
}

/** Leading zero bits of `hash`, counted from the most significant bit of byte 0. */
export function leadingZeroBits(hash: Uint8Array): number {
  let bits = 0;
  for (const byte of hash) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

/** Whether the proof hash meets the difficulty. */
export const meetsDifficulty = (hash: Uint8Array, difficulty: number) => leadingZeroBits(hash) >= difficulty;
