import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Refresh tokens name their session and generation, so a rotation is one conditional write of the session
 * row (docs/security.md, "Refresh tokens"). `rt_` + 70 base64url characters of 52 bytes:
 *
 *   session id (16, the UUID's bytes) | generation (4, unsigned big-endian) | nonce (16, random) | MAC (16)
 *
 * The MAC is HMAC-SHA256, truncated to 128 bits, under a key derived from MASTER_KEY, over everything
 * before it. The session row stores only the SHA-256 of its current token: the row, not the MAC, decides
 * whether a token is current, so a database copy mints nothing and a master-key rotation ends no session.
 * The MAC proves that a token which is no longer current was once issued, which is what lets its reuse
 * end the session (theft) while a forged one, naming a session id someone learnt from an access token,
 * is only refused.
 */
const TOKEN_BYTES = 52;
const PREFIX = 'rt_';
const MAC_INPUT_LABEL = Buffer.from('gatehouse refresh token v1\0');
/**
 * The last generation a session reaches: 2^31 - 1, what a PostgreSQL integer holds (a session refreshed
 * every second for 68 years stays below it). A token naming a later one is refused before any write.
 */
export const MAX_GENERATION = 0x7fffffff;

export interface RefreshTokenParts {
  sessionId: string;
  generation: number;
}

interface ReadToken extends RefreshTokenParts {
  signed: Buffer;
  mac: Buffer;
}

function mac(key: Buffer, signed: Buffer): Buffer {
  return createHmac('sha256', key).update(MAC_INPUT_LABEL).update(signed).digest().subarray(0, 16);
}

/** A new token for generation `generation` of the session (a UUID); `key` is the current refresh-token key. */
export function mintRefreshToken(key: Buffer, sessionId: string, generation: number): string {
  const signed = Buffer.alloc(TOKEN_BYTES - 16);
  const hex = sessionId.replaceAll('-', '');
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new Error('mintRefreshToken: the session id is not a UUID');
  signed.write(hex, 0, 'hex');
  signed.writeUInt32BE(generation, 16);
  randomBytes(16).copy(signed, 20);
  return PREFIX + Buffer.concat([signed, mac(key, signed)]).toString('base64url');
}

/** The parts of a token of this form, or undefined (any other text, a token of the earlier form included). */
export function readRefreshToken(token: string): ReadToken | undefined {
  if (token.length !== PREFIX.length + 70 || !token.startsWith(PREFIX)) return undefined;
  const body = token.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]{70}$/.test(body)) return undefined;
  const bytes = Buffer.from(body, 'base64url');
  // 70 characters carry 52 bytes and 4 spare bits: only one spelling of each token is accepted.
  if (bytes.length !== TOKEN_BYTES || bytes.toString('base64url') !== body) return undefined;
  const hex = bytes.toString('hex', 0, 16);
  const sessionId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { sessionId, generation: bytes.readUInt32BE(16), signed: bytes.subarray(0, TOKEN_BYTES - 16), mac: bytes.subarray(TOKEN_BYTES - 16) };
}

/** True when one of the keys (current, then the one a master-key rotation retires) made the token's MAC. */
export function wasIssued(keys: readonly Buffer[], token: ReadToken): boolean {
  let issued = false;
  for (const key of keys) issued = timingSafeEqual(mac(key, token.signed), token.mac) || issued;
  return issued;
}

/** A token of the form before sessions carried their refresh state: `rt_` + 43 base64url characters. */
export const isEarlierRefreshToken = (token: string) => token.length === PREFIX.length + 43 && /^rt_[A-Za-z0-9_-]{43}$/.test(token);
