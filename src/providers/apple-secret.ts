import { createHash, createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';

// Apple does not take a fixed client secret: the client authenticates with an ES256 JWT signed by the
// app's .p8 key (`iss` team id, `sub` client id, `aud` the issuer, `kid` the key id). Each one is made
// for an hour and reused until shortly before it expires.

const LIFETIME_SECONDS = 3600;
const RENEW_BEFORE_SECONDS = 300;

/** Parses the PEM of an Apple .p8 key: an EC P-256 private key. Throws with a sentence when it is not one. */
export function parseAppleKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new Error('private_key is not a PEM private key');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('private_key must be an ES256 (EC P-256) key, as Apple issues in the .p8 file');
  }
  return key;
}

export interface AppleClient {
  clientId: string;
  teamId: string;
  keyId: string;
  privateKeyPem: string;
  /** The issuer (APPLE_ISSUER): the JWT's audience. */
  audience: string;
}

/** Client-secret JWTs per app, reused until RENEW_BEFORE_SECONDS before they expire. */
export class AppleClientSecrets {
  private readonly cache = new Map<string, { jwt: string; renewAt: number }>();

  async secretFor(appId: string, apple: AppleClient): Promise<string> {
    // A changed key, team, key id or client id is another cache entry: a reconfigured app never reuses the old JWT.
    const fingerprint = createHash('sha256').update(JSON.stringify([appId, apple.clientId, apple.teamId, apple.keyId, apple.privateKeyPem, apple.audience])).digest('hex');
    const now = Math.floor(Date.now() / 1000);
    const hit = this.cache.get(fingerprint);
    if (hit && hit.renewAt > now) return hit.jwt;
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: apple.keyId })
      .setIssuer(apple.teamId)
      .setSubject(apple.clientId)
      .setAudience(apple.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + LIFETIME_SECONDS)
      .sign(parseAppleKey(apple.privateKeyPem));
    for (const [key, entry] of this.cache) if (entry.renewAt <= now) this.cache.delete(key);
    this.cache.set(fingerprint, { jwt, renewAt: now + LIFETIME_SECONDS - RENEW_BEFORE_SECONDS });
    return jwt;
  }
}
