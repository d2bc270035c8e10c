import { iso } from '../clock.js';
import { sha256Hex } from '../crypto/ids.js';
import type { Deps } from '../deps.js';
import { ApiError } from '../errors.js';
import * as applications from '../store/repos/applications.js';
import type { Application } from '../store/repos/applications.js';
import * as sessions from '../store/repos/sessions.js';
import { findKeyAppAndEmailUser, findSessionAuth, type SessionUser } from '../store/repos/session-auth.js';
import { normalizeEmail, type User } from '../store/repos/users.js';
import type { VerifiedAccessToken } from './apps/keys.js';

// What a request's credentials are worth: a key → its app, a token → its live session. The HTTP guards
// (http/plugins/guards.ts) read the headers and cookies and put the answers on the request; every rule is
// here. Three ways answer the same question, and must agree:
// - step by step: the key's app (appFromKey), then the token verified for it and its session read (liveSession);
// - joined: for Publishable + Session, key → app → live session → user in one statement (joinedSession),
//   the hot path of GET /v1/me; any miss falls back to step by step, which tells which link failed;
// - presumed: a key this node has seen name an app (exact forever: a key never changes apps) is let
//   through without a lookup (presumedKey); the route's own statement checks it is still live and its
//   tenant unpaused (KeyGate in store/repos/applications.ts), and when that statement finds nothing the
//   guard that was skipped runs after all, so its 401 or 402 answers as it would have.

export type { Application, SessionUser, User };
/** An email as the store keys it: the email-user lookup and the rate-limit keys read it the same way. */
export { normalizeEmail };

/** The signed-in session of a request, as every route reads it. */
export interface SessionContext {
  userId: string;
  sessionId: string;
  email: string | null;
  emailVerified: boolean;
  /** How the access token came: a cookie needs the CSRF rule on unsafe methods. */
  via: 'cookie' | 'bearer';
  token: string;
  /**
   * The access token's `auth_time` (Unix seconds): when the session's user signed in, kept by refreshes.
   * Rules that need a recent sign-in read it (services/sessions/step-up.ts); undefined for a token without it.
   */
  authTime: number | undefined;
  /** How the session was opened and its assurance level (docs/mfa.md), from the access token. */
  amr: string[];
  aal: 'aal1' | 'aal2';
  /** The active organisation the access token names (org_id); the data statements check it is still the session's. */
  orgId: string | undefined;
}

/**
 * A key a presuming guard let through without a lookup: this node has seen it name `appId` (exact
 * forever: a key never changes apps), but whether it is still live and its tenant unpaused is not known
 * until the route's statement checks it.
 */
export interface PresumedKey {
  appId: string;
  keyHash: string;
  kind: 'publishable' | 'secret';
}

/** The one place the request-session object is made, whichever way the session was found. */
export function sessionContext(claims: VerifiedAccessToken, via: SessionContext['via'], token: string): SessionContext {
  return {
    userId: claims.sub,
    sessionId: claims.sid,
    email: claims.email,
    emailVerified: claims.email_verified,
    via,
    token,
    authTime: claims.auth_time,
    amr: claims.amr,
    aal: claims.aal,
    orgId: claims.org_id,
  };
}

/**
 * A paused tenant's apps answer 402 on every guarded route but billing. The flag rides on the app lookup
 * the guard just made (no extra query, no cache: a credit resumes every node at once).
 */
export function refusePaused(app: Pick<Application, 'paused'> | undefined): void {
  if (app?.paused) {
    throw new ApiError(402, 'payment_required', "this application is paused: its tenant's balance is below zero; top up through /v1/billing");
  }
}

/**
 * An app with `--mfa required` (docs/mfa.md): whether this session must enroll a second factor before it
 * may use a route other than enrollment, GET /v1/me and logout. Bots and server-issued sign-in tokens are
 * not asked. Read from the token and the app already loaded: no query.
 */
export function needsSecondFactor(app: Application, session: SessionContext): boolean {
  return app.mfaRequired && session.aal !== 'aal2' && !session.amr.includes('bot') && !session.amr.includes('token');
}

/** The `aud` an access token claims (unverified: it only picks the app to verify the token for). */
export function claimedAudience(token: string): string | undefined {
  const payload = token.split('.')[1];
  if (!payload || payload.length > 4096) return undefined;
  try {
    const aud = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { aud?: unknown }).aud;
    return typeof aud === 'string' ? aud : undefined;
  } catch {
    return undefined;
  }
}

/** Keys remembered, of each kind: the keys that named an app, bounded. */
const KEYS_KEPT = 1024;

/** A bounded map: the oldest entry goes first. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.has(key)) return;
  if (map.size >= KEYS_KEPT) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

/** Why a token is not a live session of its app: bad (unverifiable, expired, another app's) or revoked. */
export type SessionRefusal = 'invalid' | 'revoked';

export type Credentials = ReturnType<typeof createCredentials>;

export function createCredentials(deps: Pick<Deps, 'db' | 'clock' | 'keys'>) {
  const { db, clock, keys } = deps;

  // Keys that named an app are remembered with it (bounded; made-up keys are not kept), so a presuming
  // guard can skip the lookup and a publishable key's SHA-256 is not taken again. Publishable keys are
  // public and kept as sent; secret keys only by their hash (as the database keeps them), so they are
  // hashed on every request and no secret stays in memory beyond its request.
  const publishableKeys = new Map<string, { hash: string; appId: string }>();
  const secretKeyApps = new Map<string, string>();
  const publishableKeyHash = (key: string): string => publishableKeys.get(key)?.hash ?? sha256Hex(key);

  /** The live app of a key (undefined for an unknown, expired or deleted one), remembered when found. */
  async function appFromKey(key: string, kind: 'publishable' | 'secret'): Promise<Application | undefined> {
    const hash = kind === 'publishable' ? publishableKeyHash(key) : sha256Hex(key);
    const app = await applications.findApplicationByKeyHash(db, hash, kind, iso(clock.now()));
    if (app && kind === 'publishable') remember(publishableKeys, key, { hash, appId: app.id });
    if (app && kind === 'secret') remember(secretKeyApps, hash, app.id);
    return app;
  }

  return {
    appFromKey,

    /** The app whose verified domain is this Host. */
    appOfDomain: (host: string): Promise<Application | undefined> => applications.findApplicationByDomain(db, host),

    /** The access token verified for `appId` (undefined when it is not one of that app's valid tokens). */
    verifyToken: (appId: string, token: string) => keys.verifyAccessToken(appId, token),

    /** A publishable key's app and the app's user with `email`, in one statement; undefined for a bad key. */
    async keyAppAndEmailUser(key: string, email: string): Promise<{ app: Application; emailNormalized: string; user: User | undefined } | undefined> {
      const keyHash = publishableKeyHash(key);
      const emailNormalized = normalizeEmail(email);
      const found = await findKeyAppAndEmailUser(db, { keyHash, emailNormalized, now: iso(clock.now()) });
      if (!found) return undefined;
      remember(publishableKeys, key, { hash: keyHash, appId: found.app.id });
      return { app: found.app, emailNormalized, user: found.user };
    },

    /** Step by step: `token` verified for `app`, and its session still live in the database (revoked at once on every node). */
    async liveSession(app: Application, token: string): Promise<VerifiedAccessToken | SessionRefusal> {
      const claims = await keys.verifyAccessToken(app.id, token);
      if (!claims) return 'invalid';
      const live = await sessions.findLiveSession(db, app.id, claims.sid, iso(clock.now()));
      if (!live || live.user_id !== claims.sub) return 'revoked';
      return claims;
    },

    /**
     * Joined: the token verified for the app it names (the verified-token cache makes a repeat free), then
     * key → app → live session → user in one statement. Undefined on any miss: the caller goes step by step.
     */
    async joinedSession(key: string, token: string): Promise<{ app: Application; claims: VerifiedAccessToken; user: SessionUser } | undefined> {
      // A token verified before names its app without decoding it again; verifyAccessToken checks it anyway.
      const appId = keys.verifiedAudience(token) ?? claimedAudience(token);
      if (!appId) return undefined;
      const claims = await keys.verifyAccessToken(appId, token);
      if (!claims) return undefined;
      const keyHash = publishableKeyHash(key);
      const found = await findSessionAuth(db, { keyHash, appId, sessionId: claims.sid, userId: claims.sub, now: iso(clock.now()) });
      if (!found) return undefined;
      remember(publishableKeys, key, { hash: keyHash, appId: found.app.id });
      return { app: found.app, claims, user: found.user };
    },

    /** Presumed: the key as this node has seen it name an app, or undefined (the guard then looks it up). */
    presumedKey(key: string, kind: 'publishable' | 'secret'): PresumedKey | undefined {
      if (kind === 'publishable') {
        const known = publishableKeys.get(key);
        return known && { appId: known.appId, keyHash: known.hash, kind };
      }
      const keyHash = sha256Hex(key);
      const appId = secretKeyApps.get(keyHash);
      return appId === undefined ? undefined : { appId, keyHash, kind };
    },
  };
}
