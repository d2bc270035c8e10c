import { sign, type KeyObject } from 'node:crypto';

/**
 * RS256 compact JWS signing (RFC 7515 §3.1, RFC 7518 §3.3) straight on node:crypto, for the access
 * tokens every sign-in, refresh and minted session signs. jose's SignJWT does the same through WebCrypto,
 * whose argument checks (algorithm normalization, WebIDL conversions, a CryptoKey made from the KeyObject)
 * cost about 50 µs of the event loop per signature on top of the ~40 µs here (bench/README.md, "Refresh");
 * the RSA work itself runs on libuv's thread pool either way. Verification stays with jose (jwtVerify),
 * which also checks every token signed here in the tests.
 *
 * The header is encoded once per kid. Claims are serialized with JSON.stringify: the JWS covers the exact
 * bytes it produces, in UTF-8.
 */
const encodedHeaders = new Map<string, string>();

function encodedHeader(kid: string): string {
  let header = encodedHeaders.get(kid);
  if (header === undefined) {
    header = Buffer.from(JSON.stringify({ alg: 'RS256', kid, typ: 'JWT' })).toString('base64url');
    // Kids are few (one or two per app); a bound keeps a long-lived process with many apps from growing.
    if (encodedHeaders.size >= 10_000) encodedHeaders.clear();
    encodedHeaders.set(kid, header);
  }
  return header;
}

/** `header.payload.signature` for the claims, signed with the RSA private key under `kid`. */
export function signRs256Jwt(key: KeyObject, kid: string, claims: Record<string, unknown>): Promise<string> {
  const input = `${encodedHeader(kid)}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return new Promise((resolve, reject) => {
    sign('sha256', Buffer.from(input), key, (error, signature) => {
      if (error) reject(error);
      else resolve(`${input}.${signature.toString('base64url')}`);
    });
  });
}
