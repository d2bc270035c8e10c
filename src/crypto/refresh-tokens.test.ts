import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isEarlierRefreshToken, mintRefreshToken, readRefreshToken, wasIssued } from './refresh-tokens.js';

describe('refresh tokens', () => {
  const key = randomBytes(32);
  const previous = randomBytes(32);

  it('name their session and generation, and prove they were issued under the current or the previous key only', () => {
    const sessionId = randomUUID();
    const token = mintRefreshToken(key, sessionId, 41);
    expect(token).toMatch(/^rt_[A-Za-z0-9_-]{70}$/);
    const read = readRefreshToken(token)!;
    expect(read).toMatchObject({ sessionId, generation: 41 });
    expect(wasIssued([key], read)).toBe(true);
    expect(wasIssued([randomBytes(32), key], read)).toBe(true);
    expect(wasIssued([randomBytes(32)], read)).toBe(false);
    expect(wasIssued([key], readRefreshToken(mintRefreshToken(previous, sessionId, 41))!)).toBe(false);
    expect(mintRefreshToken(key, sessionId, 41)).not.toBe(token); // a fresh nonce each time
  });

  it('a changed generation, session or MAC no longer proves anything; other spellings and forms are not read', () => {
    const token = mintRefreshToken(key, randomUUID(), 3);
    const bytes = Buffer.from(token.slice(3), 'base64url');
    for (const offset of [0, 19, 20, 51]) {
      const altered = Buffer.from(bytes);
      altered[offset] ^= 1;
      const read = readRefreshToken(`rt_${altered.toString('base64url')}`);
      expect(read && wasIssued([key], read)).toBe(false);
    }
    // The last character carries 2 bits of the MAC and 4 spare ones: a second spelling of the same bytes
    // (a spare bit set) is refused.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = token.slice(0, -1) + alphabet[alphabet.indexOf(token.at(-1)!) ^ 1];
    expect(Buffer.from(sibling.slice(3), 'base64url').equals(bytes)).toBe(true);
    expect(readRefreshToken(sibling)).toBeUndefined();
    expect(readRefreshToken(`${token}A`)).toBeUndefined();
    expect(readRefreshToken(`xx_${token.slice(3)}`)).toBeUndefined();
    expect(readRefreshToken(`rt_${'!'.repeat(70)}`)).toBeUndefined();
    const earlier = `rt_${randomBytes(32).toString('base64url')}`;
    expect(readRefreshToken(earlier)).toBeUndefined();
    expect(isEarlierRefreshToken(earlier)).toBe(true);
    expect(isEarlierRefreshToken(token)).toBe(false);
  });
});
