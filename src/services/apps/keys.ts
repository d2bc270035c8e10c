import type { KeyObject } from 'node:crypto';
import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { addSeconds, iso, type Clock } from '../../clock.js';
import { encodeRs256Header, signRs256Jwt } from '../../crypto/jws.js';
import { generateSigningKey, openPrivateKey, publicKeyFromJwk, type PublicJwk } from '../../crypto/signing-keys.js';
import { newUuid } from '../../crypto/ids.js';
import type { Db } from '../../store/db.js';
import * as signingKeys from '../../store/repos/signing-keys.js';
import { inTransaction } from '../../store/transaction.js';

export const ACCESS_TOKEN_SECONDS = 15 * 60;
const KEY_STATUS_RECHECK_MS = 30_000;
/** Verified access tokens remembered (exact: a token is immutable; see verifyAccessToken). */
export const VERIFIED_TOKEN_CACHE_SIZE = 4096;

export interface AccessClaims {
  sub: string;
  sid: string;
  email: string | null;
  email_verified: boolean;
  /** How the session was opened (RFC 8176 values; docs/mfa.md), and its assurance level. */
  amr?: string[];
  aal?: 'aal1' | 'aal2';
  /**
   * When the user proved who they are in this session (Unix seconds, OpenID Connect's `auth_time`): the
   * session's sign-in, kept by every refresh. Rules that need a recent sign-in read it, never `iat`.
   */
  auth_time?: number;
  /** The app's custom claims (services/sessions/token-claims.ts); never one of the names above. */
  custom?: Record<string, unknown>;
  /** The session's active organisation (docs/organizations.md): org_id, org_slug, org_role, org_permissions. */
  org?: OrgClaims;
}

export interface OrgClaims {
  id: string;
  slug: string;
  role: string;
  permissions: string[];
}

export interface VerifiedAccessToken extends AccessClaims {
  /** The active organisation the token names (its org_id claim), if any. */
  org_id?: string;
  amr: string[];
  aal: 'aal1' | 'aal2';
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
  /** Opened private keys by kid, each with its tokens' encoded header. */
  private readonly privateKeys = new Map<string, { key: KeyObject; header: string }>();
  private readonly publicKeys = new Map<string, { key: KeyObject; retiredAt: string | null; checkedAt: number }>();
  /** Token string → what verifying it gave, until its exp: a busy session costs no RSA work per request. */
  private readonly verified = new Map<string, { appId: string; kid: string; claims: VerifiedAccessToken }>();

  constructor(
    private readonly db: Db,
    /** The current master key first (it seals), then the previous one while a rotation runs (it only opens). */
    private readonly masterKeys: readonly Buffer[],
    private readonly clock: Clock,
    private readonly issuer: string,
    /** How long a retired key stays published: the longest a token it signed can live. */
    private readonly retiredKeyLifetimeSeconds: number,
  ) {}

  /** Creates the app's next signing key and makes it the current one (retiring the previous). */
  async rotate(db: Db, appId: string): Promise<string> {
    const version = (await signingKeys.maxSigningKeyVersion(db, appId)) + 1;
    const kid = `${appId}:${version}`;
    const generated = await generateSigningKey(this.masterKeys[0], kid);
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

  /**
   * Signs an access JWT for the app with its current key. `expiresAt` defaults to now + 15 minutes.
   * `currentKid` is the app's current kid when the caller read it in its own statement (a session
   * opened or rotated); without it the current key is read here.
   */
  async signAccessToken(appId: string, claims: AccessClaims, expiresAt?: Date, currentKid?: string): Promise<string> {
    const kid = currentKid?.startsWith(`${appId}:`) ? currentKid : undefined;
    let signing = kid === undefined ? undefined : this.privateKeys.get(kid);
    if (!signing) {
      const row = kid === undefined ? await signingKeys.findActiveSigningKey(this.db, appId) : await signingKeys.findSigningKeyByKid(this.db, appId, kid);
      if (!row) throw new Error(`application ${appId} has no signing key`);
      signing = { key: openPrivateKey(this.masterKeys, row.kid, row.private_key_sealed), header: encodeRs256Header(row.kid) };
      this.privateKeys.set(row.kid, signing);
    }
    const now = this.clock.now();
    return signRs256Jwt(signing.key, signing.header, {
      ...claims.custom,
      sid: claims.sid,
      email: claims.email,
      email_verified: claims.email_verified,
      amr: claims.amr ?? [],
      aal: claims.aal ?? 'aal1',
      ...(claims.auth_time === undefined ? {} : { auth_time: claims.auth_time }),
      ...(claims.org === undefined ? {} : { org_id: claims.org.id, org_slug: claims.org.slug, org_role: claims.org.role, org_permissions: claims.org.permissions }),
      iss: this.issuer,
      aud: appId,
      sub: claims.sub,
      iat: Math.floor(now.getTime() / 1000),
      exp: Math.floor((expiresAt ?? addSeconds(now, ACCESS_TOKEN_SECONDS)).getTime() / 1000),
    });
  }

  /** The app a token was verified for, when this very token string was verified before; else undefined. */
  verifiedAudience(token: string): string | undefined {
    return this.verified.get(token)?.appId;
  }

  /**
   * Verifies an access JWT for the app: RS256 only, a kid of this app, issuer, audience and expiry.
   * Returns undefined for any invalid token (the caller answers 401).
   */
  async verifyAccessToken(appId: string, token: string): Promise<VerifiedAccessToken | undefined> {
    // The same token string verified before: its signature, issuer, audience and lifetime cannot have
    // changed, so only what changes with time is checked again: the expiry (as jose checks it) and that
    // the JWKS still publishes its kid (a key retired past the token lifetime verifies nothing).
    const known = this.verified.get(token);
    if (known && known.appId === appId) {
      if (known.claims.exp <= Math.floor(this.clock.now().getTime() / 1000)) {
        this.verified.delete(token);
        return undefined;
      }
      try {
        await this.publicKey(appId, known.kid);
      } catch {
        this.verified.delete(token);
        return undefined;
      }
      return { ...known.claims };
    }
    try {
      let kid = '';
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          if (typeof header.kid !== 'string' || !header.kid.startsWith(`${appId}:`)) throw new joseErrors.JWKSNoMatchingKey();
          kid = header.kid;
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
      // No token the service issues lives longer than a retired key stays published; a longer one was not
      // made here (or was made under a cap since lowered) and is refused.
      if ((payload.exp as number) - (payload.iat as number) > this.retiredKeyLifetimeSeconds) return undefined;
      const claims = toVerified(payload);
      if (claims) {
        if (this.verified.size >= VERIFIED_TOKEN_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value as string);
        this.verified.set(token, { appId, kid, claims });
        return { ...claims };
      }
      return claims;
    } catch {
      return undefined;
    }
  }

  /** The JWKS of the app: the current key and retired keys whose tokens may still be alive. */
  async jwks(app: { appId: string } | { domain: string }): Promise<PublicJwk[] | undefined> {
    const since = iso(addSeconds(this.clock.now(), -this.retiredKeyLifetimeSeconds));
    const keys = await signingKeys.findPublishedKeys(this.db, app, since);
    return keys?.map((jwk) => JSON.parse(jwk) as PublicJwk);
  }

  /**
   * The public key of a kid the JWKS publishes at this moment: the current key, or a retired one whose
   * tokens may still be alive. A key retired longer ago verifies nothing, even on the service's own routes.
   * The key object is cached for good (immutable); the retirement is re-read at most every 30 s while the
   * key is current, which stays exact because a key retired within those 30 s is still published.
   */
  private async publicKey(appId: string, kid: string): Promise<KeyObject> {
    let entry = this.publicKeys.get(kid);
    if (!entry || (entry.retiredAt === null && Date.now() - entry.checkedAt > KEY_STATUS_RECHECK_MS)) {
      const row = await signingKeys.findSigningKeyByKid(this.db, appId, kid);
      if (!row) throw new joseErrors.JWKSNoMatchingKey();
      const key = entry?.key ?? publicKeyFromJwk(JSON.parse(row.public_jwk) as PublicJwk);
      entry = { key, retiredAt: row.retired_at, checkedAt: Date.now() };
      this.publicKeys.set(kid, entry);
    }
    if (entry.retiredAt !== null) {
      const publishedSince = iso(addSeconds(this.clock.now(), -this.retiredKeyLifetimeSeconds));
      if (entry.retiredAt <= publishedSince) throw new joseErrors.JWKSNoMatchingKey();
    }
    return entry.key;
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
    // Tokens signed before second factors carry neither: no method known, aal1.
    amr: Array.isArray(payload.amr) ? payload.amr.filter((v): v is string => typeof v === 'string') : [],
    aal: payload.aal === 'aal2' ? 'aal2' : 'aal1',
    // Tokens signed before auth_time carry none: no recent sign-in is known for them.
    auth_time: typeof payload.auth_time === 'number' && Number.isSafeInteger(payload.auth_time) ? payload.auth_time : undefined,
    ...(typeof payload.org_id === 'string' ? { org_id: payload.org_id } : {}),
    exp: payload.exp as number,
    iat: payload.iat as number,
  };
}
