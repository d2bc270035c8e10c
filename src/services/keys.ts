import type { KeyObject } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { addSeconds, iso, type Clock } from '../clock.js';
import { generateSigningKey, openPrivateKey, publicKeyFromJwk, type PublicJwk } from '../crypto/signing-keys.js';
import { newUuid } from '../crypto/ids.js';
import type { Db } from '../store/db.js';
import * as signingKeys from '../store/repos/signing-keys.js';
import { inTransaction } from '../store/transaction.js';

export const ACCESS_TOKEN_SECONDS = 15 * 60;

export interface AccessClaims {
  sub: string;
  sid: string;
  email: string | null;
  email_verified: boolean;
}

export interface VerifiedAccessToken extends AccessClaims {
  aud: string;
  exp: number;
  iat: number;
}

/**
 * The signing keys of every app: creation, rotation, JWT signing and verification, the JWKS.
 * Private keys are opened once per kid and kept in memory; the current kid is read from the
 * database on each signing so a rotation made by the CLI (another process) is used at once.
 */
export class KeyRing {
  private readonly privateKeys = new Map<string, KeyObject>();
  private readonly publicKeys = new Map<string, KeyObject>();

  constructor(
    private readonly db: Db,
    private readonly masterKey: Buffer,
    private readonly clock: Clock,
    private readonly issuer: string,
    /** How long a retired key stays published: the longest a token it signed can live. */
    private readonly retiredKeyLifetimeSeconds: number,
  ) {}

  /** Creates the app's next signing key and makes it the current one (retiring the previous). */
  async rotate(db: Db, appId: string): Promise<string> {
    const version = (await signingKeys.maxSigningKeyVersion(db, appId)) + 1;
    const kid = `${appId}:${version}`;
    const generated = await generateSigningKey(this.masterKey, kid);
    const now = iso(this.clock.now());
    await inTransaction(db, async (trx) => {
      await signingKeys.retireSigningKeys(trx, appId, now);
      await signingKeys.insertSigningKey(trx, {
        id: newUuid(),
        app_id: appId,
        version,
        kid,
        public_jwk: JSON.stringify(generated.publicJwk),
        private_key_sealed: generated.privateKeySealed,
        created_at: now,
        retired_at: null,
      });
    });
    return kid;
  }

  async currentKid(appId: string): Promise<string | undefined> {
    return (await signingKeys.findActiveSigningKey(this.db, appId))?.kid;
  }

  /** Signs an access JWT for the app with its current key. `expiresAt` defaults to now + 15 minutes. */
  async signAccessToken(appId: string, claims: AccessClaims, expiresAt?: Date): Promise<string> {
    const row = await signingKeys.findActiveSigningKey(this.db, appId);
    if (!row) throw new Error(`application ${appId} has no signing key`);
    let key = this.privateKeys.get(row.kid);
    if (!key) {
      key = openPrivateKey(this.masterKey, row.kid, row.private_key_sealed);
      this.privateKeys.set(row.kid, key);
    }
    const now = this.clock.now();
    return new SignJWT({ sid: claims.sid, email: claims.email, email_verified: claims.email_verified })
      .setProtectedHeader({ alg: 'RS256', kid: row.kid, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience(appId)
      .setSubject(claims.sub)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor((expiresAt ?? addSeconds(now, ACCESS_TOKEN_SECONDS)).getTime() / 1000))
      .sign(key);
  }

  /**
   * Verifies an access JWT for the app: RS256 only, a kid of this app, issuer, audience and expiry.
   * Returns undefined for any invalid token (the caller answers 401).
   */
  async verifyAccessToken(appId: string, token: string): Promise<VerifiedAccessToken | undefined> {
    try {
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const kid = header.kid;
          if (typeof kid !== 'string' || !kid.startsWith(`${appId}:`)) throw new joseErrors.JWKSNoMatchingKey();
          return this.publicKey(appId, kid);
        },
        {
          algorithms: ['RS256'],
          issuer: this.issuer,
          audience: appId,
          currentDate: this.clock.now(),
          requiredClaims: ['sub', 'sid', 'exp', 'iat'],
        },
      );
      return toVerified(payload);
    } catch {
      return undefined;
    }
  }

  /** The JWKS of the app: the current key and retired keys whose tokens may still be alive. */
  async jwks(appId: string): Promise<PublicJwk[]> {
    const since = iso(addSeconds(this.clock.now(), -this.retiredKeyLifetimeSeconds));
    const rows = await signingKeys.listPublishedSigningKeys(this.db, appId, since);
    return rows.map((row) => JSON.parse(row.public_jwk) as PublicJwk);
  }

  private async publicKey(appId: string, kid: string): Promise<KeyObject> {
    const cached = this.publicKeys.get(kid);
    if (cached) return cached;
    const row = await signingKeys.findSigningKeyByKid(this.db, appId, kid);
    if (!row) throw new joseErrors.JWKSNoMatchingKey();
    const key = publicKeyFromJwk(JSON.parse(row.public_jwk) as PublicJwk);
    this.publicKeys.set(kid, key);
    return key;
  }
}

function toVerified(payload: JWTPayload): VerifiedAccessToken | undefined {
  if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.aud !== 'string') return undefined;
  return {
    sub: payload.sub,
    sid: payload.sid,
    aud: payload.aud,
    email: typeof payload.email === 'string' ? payload.email : null,
    email_verified: payload.email_verified === true,
    exp: payload.exp as number,
    iat: payload.iat as number,
  };
}
