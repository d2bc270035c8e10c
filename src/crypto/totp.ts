import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// TOTP (RFC 6238 over RFC 4226): HMAC-SHA-1, 6 digits, 30-second steps, a code accepted for the step
// before and after now too (clock drift). Authenticator apps take the secret as RFC 4648 base32.

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text.replace(/=+$/, '').toUpperCase()) {
    const index = ALPHABET.indexOf(char);
    if (index < 0) throw new Error('not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** A new secret: 160 bits (RFC 4226's recommended length for SHA-1), base32. */
export const newTotpSecret = (): string => base32Encode(randomBytes(20));

/** The time step of an instant. */
export const stepAt = (now: Date): number => Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS);

/** The code of a step (RFC 4226 dynamic truncation). */
export function totpCode(secret: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const number = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** TOTP_DIGITS;
  return number.toString().padStart(TOTP_DIGITS, '0');
}

/**
 * The step (now - 1, now or now + 1) whose code is `code`, or undefined. Every candidate is compared,
 * in constant time, whether or not an earlier one matched: the time taken says nothing about the code.
 */
export function matchingStep(secret: string, code: string, now: Date): number | undefined {
  const given = Buffer.from(code.padEnd(TOTP_DIGITS, ' ').slice(0, TOTP_DIGITS));
  const current = stepAt(now);
  let found: number | undefined;
  for (const step of [current - 1, current, current + 1]) {
    const same = timingSafeEqual(given, Buffer.from(totpCode(secret, step)));
    if (same && found === undefined && code.length === TOTP_DIGITS) found = step;
  }
  return found;
}

/** The `otpauth://` URI authenticator apps read (Key Uri Format): issuer, account, secret and parameters. */
export function otpauthUri(issuer: string, account: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_PERIOD_SECONDS) });
  return `otpauth://totp/${label}?${query.toString()}`;
}
