import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, matchingStep, otpauthUri, totpCode } from './totp.js';

// RFC 6238 appendix B, SHA-1: the secret is the ASCII "12345678901234567890"; codes are the last 6 digits.
const secret = base32Encode(Buffer.from('12345678901234567890'));
const vectors: [seconds: number, code: string][] = [
  [59, '287082'],
  [1111111109, '081804'],
  [1111111111, '050471'],
  [1234567890, '005924'],
  [2000000000, '279037'],
  [20000000000, '353130'],
];

describe('TOTP (RFC 6238)', () => {
  it('answers the RFC 6238 test vectors', () => {
    for (const [seconds, code] of vectors) expect(totpCode(secret, Math.floor(seconds / 30))).toBe(code);
  });

  it('base32 round-trips', () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255, 7]);
    expect(base32Decode(base32Encode(bytes))).toEqual(bytes);
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
  });

  it('accepts the step before and after now, not two away', () => {
    const now = new Date(1111111111 * 1000);
    const step = Math.floor(1111111111 / 30);
    expect(matchingStep(secret, totpCode(secret, step), now)).toBe(step);
    expect(matchingStep(secret, totpCode(secret, step - 1), now)).toBe(step - 1);
    expect(matchingStep(secret, totpCode(secret, step + 1), now)).toBe(step + 1);
    expect(matchingStep(secret, totpCode(secret, step + 2), now)).toBeUndefined();
    expect(matchingStep(secret, '12345', now)).toBeUndefined();
  });

  it('writes the otpauth URI authenticator apps read', () => {
    expect(otpauthUri('Acme App', 'a@example.com', 'ABC')).toBe('otpauth://totp/Acme%20App:a%40example.com?secret=ABC&issuer=Acme+App&algorithm=SHA1&digits=6&period=30');
  });
});
