import { describe, expect, it } from 'vitest';
import { decodeChallenge, encodeChallenge, leadingZeroBits, meetsDifficulty, validNonce } from './hashcash.js';

const key = Buffer.alloc(32, 7);
const otherKey = Buffer.alloc(32, 8);
const fields = { appId: 'app_ABCdef0123456789xyzQ', issuedAtMs: 1_763_700_000_123, difficulty: 6 };

describe('contract 3: leading zero bits, from the most significant bit of byte 0', () => {
  it('counts within the first byte', () => {
    expect(leadingZeroBits(Uint8Array.of(0b1000_0000, 0))).toBe(0);
    expect(leadingZeroBits(Uint8Array.of(0b0100_0000, 0))).toBe(1);
    expect(leadingZeroBits(Uint8Array.of(0b0000_0011, 0))).toBe(6);
    expect(leadingZeroBits(Uint8Array.of(0b0000_0001, 0xff))).toBe(7);
  });

  it('crosses byte boundaries', () => {
    expect(leadingZeroBits(Uint8Array.of(0, 0xff))).toBe(8);
    expect(leadingZeroBits(Uint8Array.of(0, 0b1000_0000))).toBe(8);
    expect(leadingZeroBits(Uint8Array.of(0, 0b0100_0000))).toBe(9);
    expect(leadingZeroBits(Uint8Array.of(0, 0, 0b0001_0000, 0))).toBe(19);
    expect(leadingZeroBits(Uint8Array.of(0, 0, 0, 0, 1))).toBe(39);
  });

  it('an all-zero hash has every bit zero; an empty one none', () => {
    expect(leadingZeroBits(new Uint8Array(32))).toBe(256);
    expect(leadingZeroBits(new Uint8Array(0))).toBe(0);
  });

  it('meets a difficulty when the count is at least it', () => {
    const hash = Uint8Array.of(0, 0b0010_0000); // 10 bits
    expect(meetsDifficulty(hash, 0)).toBe(true);
    expect(meetsDifficulty(hash, 10)).toBe(true);
    expect(meetsDifficulty(hash, 11)).toBe(false);
  });
});

describe('contract 3: the challenge is self-verifying', () => {
  it('round-trips its app, issue time and difficulty', () => {
    const challenge = encodeChallenge(key, fields);
    expect(challenge).toMatch(/^v1\.app_\w+\.\d+\.6\.[\w-]{22}\.[\w-]{43}$/);
    expect(decodeChallenge(key, challenge)).toEqual(fields);
  });

  it('two challenges with the same fields differ (random part)', () => {
    expect(encodeChallenge(key, fields)).not.toBe(encodeChallenge(key, fields));
  });

  it('refuses a challenge MAC-ed with another key', () => {
    expect(decodeChallenge(otherKey, encodeChallenge(key, fields))).toBeUndefined();
  });

  it('refuses any edited field', () => {
    const challenge = encodeChallenge(key, fields);
    const parts = challenge.split('.');
    const edits = [
      { index: 1, value: 'app_ABCdef0123456789xyzR' },
      { index: 2, value: String(fields.issuedAtMs + 1) },
      { index: 3, value: '0' },
      { index: 4, value: `${parts[4]!.slice(0, -1)}${parts[4]!.endsWith('A') ? 'B' : 'A'}` },
      { index: 5, value: `${parts[5]!.slice(0, -1)}${parts[5]!.endsWith('A') ? 'B' : 'A'}` },
    ];
    for (const { index, value } of edits) {
      const edited = parts.map((p, i) => (i === index ? value : p)).join('.');
      expect(decodeChallenge(key, edited), `field ${index}`).toBeUndefined();
    }
  });

  it('refuses another spelling of the same MAC (spare bits of the last base64url character)', () => {
    const challenge = encodeChallenge(key, fields);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(challenge.at(-1)!);
    const sameBytes = alphabet[last ^ 1]!; // 43 chars carry 258 bits: the lowest 2 of the last one are spare
    const respelled = challenge.slice(0, -1) + sameBytes;
    expect(Buffer.from(respelled.split('.')[5]!, 'base64url')).toEqual(Buffer.from(challenge.split('.')[5]!, 'base64url'));
    expect(decodeChallenge(key, respelled)).toBeUndefined();
  });

  it('refuses truncated, extended, garbage and oversized input', () => {
    const challenge = encodeChallenge(key, fields);
    for (const bad of [challenge.slice(0, -1), `${challenge}A`, `${challenge}.x`, '', 'garbage', 'v1.....', 'x'.repeat(10_000)]) {
      expect(decodeChallenge(key, bad)).toBeUndefined();
    }
  });

  it('refuses another format version', () => {
    const challenge = encodeChallenge(key, fields);
    expect(decodeChallenge(key, challenge.replace(/^v1\./, 'v2.'))).toBeUndefined();
  });

  it('refuses to encode out-of-range fields', () => {
    expect(() => encodeChallenge(key, { ...fields, difficulty: 33 })).toThrow();
    expect(() => encodeChallenge(key, { ...fields, appId: 'app.with.dots' })).toThrow();
  });
});

describe('contract 3: nonce is 1-64 characters', () => {
  it('accepts 1 to 64, counting characters not UTF-16 units', () => {
    expect(validNonce('')).toBe(false);
    expect(validNonce('0')).toBe(true);
    expect(validNonce('x'.repeat(64))).toBe(true);
    expect(validNonce('x'.repeat(65))).toBe(false);
    expect(validNonce('😀'.repeat(64))).toBe(true);
  });
});
