import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { InvalidTokenError } from './errors.js';
import { tokenOf } from './request-token.js';

/** The claims of a Gatehouse access token (docs/api.md, keys and tokens). */
export interface AccessClaims {
  /** The user id. */
  sub: string;
  /** The session id: revoke it with the admin client's `sessions.revoke`. */
  sid: string;
  /** The app id. */
  aud: string;
  /** Gatehouse's PUBLIC_BASE_URL. */
  iss: string;
  /** Null for bots. */
  email: string | null;
  email_verified: boolean;
  /** How the session was opened (docs/mfa.md): e.g. `pwd`, `otp`, `webauthn`, `token`, `bot`. */
  amr: string[];
  /** The assurance level: `aal2` once the session used a second factor. */
  aal: 'aal1' | 'aal2';
  /** When the user signed in (Unix seconds), kept by refreshes: a rule that needs a recent sign-in reads it. */
  auth_time: number;
  iat: number;
  exp: number;
  /** The session's active organisation (docs/organizations.md): its id; absent without one. */
  org_id?: string;
  /** Its slug. */
  org_slug?: string;
  /** The user's role in it: `owner`, `admin`, `member`, or a custom role's key. */
  org_role?: string;
  /** The role's permissions: `org:read` always, the built-in ones it has, and a custom role's strings. */
  org_permissions?: string[];
  /** The app's custom claims, if it set a `token_claims` template (docs/users.md): `claims.role` and the like. */
  [claim: string]: unknown;
}

export interface VerifierOptions {
  /** Gatehouse's base URL (its PUBLIC_BASE_URL): the JWKS is fetched from it, and tokens must name it as `iss`. */
  baseUrl: string;
  /** The app whose tokens are accepted (`aud`). */
  appId: string;
  /** Seconds of clock difference tolerated on `exp` and `iat` (default 5). */
  clockToleranceSeconds?: number;
  /** How long fetched keys are kept before the JWKS is read again (default 10 minutes). */
  cacheMaxAgeMs?: number;
  /** An unknown `kid` refetches the JWKS, but not within this long of the last fetch (default 30 s). */
  refetchCooldownMs?: number;
  /** The time tokens are checked against (default: now); for tests. */
  now?: () => Date;
}

export interface Verifier {
  /** The token's claims when Gatehouse signed it for this app and it has not expired; else throws InvalidTokenError. */
  verify(token: string): Promise<AccessClaims>;
  /**
   * The claims of a Web-standard Request (Next.js route handlers and middleware, Hono, Bun, Deno):
   * its `Authorization: Bearer` token, else its `__session` cookie; else throws InvalidTokenError.
   */
  verifyRequest(request: Request): Promise<AccessClaims>;
}

/**
 * Offline verification: one JWKS fetch, then every token is checked locally (RS256 signature, issuer,
 * audience, expiry). A token signed by a rotated-in key (an unknown `kid`) refetches the JWKS once.
 * Offline means a revoked session's token stays valid here until it expires (15 minutes at most); a route
 * that must know at once asks Gatehouse (`GET /v1/me`).
 */
export function createVerifier(options: VerifierOptions): Verifier {
  const base = options.baseUrl.replace(/\/+$/, '');
  const jwks: JWTVerifyGetKey = createRemoteJWKSet(new URL(`${base}/.well-known/jwks.json?app_id=${encodeURIComponent(options.appId)}`), {
    cacheMaxAge: options.cacheMaxAgeMs ?? 10 * 60_000,
    cooldownDuration: options.refetchCooldownMs ?? 30_000,
  });
  const verifier: Verifier = {
    async verifyRequest(request: Request): Promise<AccessClaims> {
      return verifier.verify(tokenOf(request.headers.get('authorization'), request.headers.get('cookie')) ?? '');
    },
    async verify(token: string): Promise<AccessClaims> {
      if (!token) throw new InvalidTokenError('missing', 'no access token');
      try {
        const { payload } = await jwtVerify(token, jwks, {
          algorithms: ['RS256'],
          issuer: base,
          audience: options.appId,
          clockTolerance: options.clockToleranceSeconds ?? 5,
          requiredClaims: ['sub', 'sid', 'exp', 'iat'],
          currentDate: options.now?.(),
        });
        return payload as AccessClaims;
      } catch (cause) {
        if (cause instanceof errors.JWTExpired) throw new InvalidTokenError('expired', 'the access token has expired', { cause });
        throw new InvalidTokenError('invalid', 'the access token is not valid for this app', { cause });
      }
    },
  };
  return verifier;
}
