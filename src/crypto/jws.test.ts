import { generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { encodeRs256Header, signRs256Jwt } from './jws.js';

describe('signRs256Jwt: RS256 compact JWS on node:crypto (issue 14)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });

  it('signs what jose verifies, with the claims and header as given', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sid: 's-1', email: 'zoë@exämple.com', email_verified: true, iss: 'http://localhost:3000', aud: 'app-1', sub: 'u-1', iat: now, exp: now + 900 };
    const token = await signRs256Jwt(privateKey, encodeRs256Header('app-1:2'), claims);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: 'app-1:2', typ: 'JWT' });
    const { payload } = await jwtVerify(token, publicKey, { algorithms: ['RS256'], issuer: 'http://localhost:3000', audience: 'app-1' });
    expect(payload).toEqual(claims);
  });

  it('a token is refused under another key, and with a changed payload', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signRs256Jwt(privateKey, encodeRs256Header('k'), { sub: 'u-1', iat: now, exp: now + 60 });
    await expect(jwtVerify(token, other.publicKey)).rejects.toThrow(/signature verification failed/);
    const [header, , signature] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ sub: 'u-2', iat: now, exp: now + 60 })).toString('base64url')}.${signature}`;
    await expect(jwtVerify(forged, publicKey)).rejects.toThrow(/signature verification failed/);
  });

  it('each kid gets its own header', async () => {
    const a = await signRs256Jwt(privateKey, encodeRs256Header('app-1:1'), { sub: 'u' });
    const b = await signRs256Jwt(privateKey, encodeRs256Header('app-2:1'), { sub: 'u' });
    expect(decodeProtectedHeader(a).kid).toBe('app-1:1');
    expect(decodeProtectedHeader(b).kid).toBe('app-2:1');
  });
});
