import { sign, type KeyObject } from 'node:crypto';

/**
 * RS256 compact JWS signing (RFC 7515 §3.1, RFC 7518 §3.3) straight on node:crypto, for the access
 * tokens every sign-in, refresh and minted session signs. jose's SignJWT does the same through WebCrypto,
 * whose argument checks (algorithm normalization, WebIDL conversions, a CryptoKey made from the KeyObject)
 * cost about 50 µs of the event loop per signature on top of the ~40 µs here (bench/README.md, the
 * 2026-11-27 14:45 results); the RSA work itself runs on libuv's thread pool either way. Verification
 * stays with jose (jwtVerify), which also checks every token signed here in the tests.
 *
 * Claims are serialized with JSON.stringify: the JWS covers the exact bytes it produces, in UTF-8.
 */

/** The encoded protected header of a key's tokens: made once per key, kept with it (KeyRing). */
export const encodeRs256Header = (kid: string) => Buffer.from(JSON.stringify({ alg: 'RS256', kid, typ: 'JWT' })).toString('base64url');

/** `header.payload.signature` for the claims, signed with the RSA private key whose header is given. */
export function signRs256Jwt(key: KeyObject, encodedHeader: string, claims: Record<string, unknown>): Promise<string> {
  const input = `${encodedHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return new Promise((resolve, reject) => {
    sign('sha256', Buffer.from(input), key, (error, signature) => {
      if (error) reject(error);
      else resolve(`${input}.${signature.toString('base64url')}`);
    });
  });
}
