import { iso } from '../clock.js';
import { safeEqual, sha256Hex } from '../crypto/ids.js';
import type { Deps } from '../deps.js';
import { ApiError, forbidden } from '../errors.js';
import * as applications from '../store/repos/applications.js';
import type { Application } from '../store/repos/applications.js';
import * as sessions from '../store/repos/sessions.js';
import { findKeyAppAndEmailUser, findSessionAuth, type SessionUser } from '../store/repos/session-auth.js';
import { normalizeEmail, type User } from '../store/repos/users.js';
import type { VerifiedAccessToken } from './apps/keys.js';
import { findLiveApiToken } from '../store/repos/tenant-api-tokens.js';
import { isOperator } from '../store/repos/console.js';
import { findConsoleAppId } from './management/console-app.js';
import { roleIn, type ConsoleCaller, type TenantRole } from './management/roles.js';

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

export type { Application, ConsoleCaller, SessionUser, User };
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

/** Who may use a Secret route's data with a Console credential: viewers only read (and query rows). */
export function consoleMayCall(role: TenantRole, method: string, routeUrl: string | undefined): boolean {
  return role !== 'viewer' || method === 'GET' || method === 'HEAD' || (method === 'POST' && routeUrl?.endsWith('/rows/query') === true);
}

export function createCredentials(deps: Pick<Deps, 'db' | 'clock' | 'keys' | 'config'>) {
  const { db, clock, keys } = deps;
  // The console app's id never changes once made: read once, kept.
  let consoleAppId: string | undefined;
  const consoleApp = async () => (consoleAppId ??= await findConsoleAppId(db));

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

  /**
   * A Console credential (docs/management.md): ADMIN_TOKEN (constant-time), a tenant API token `tk_...`
   * (its row read on every request: a revoke holds on every node at once), or an access token of the
   * console app whose session is live. Undefined when `token` is none of these kinds; 'invalid' when it
   * is of one but not valid (401); 403 `mfa_enrollment_required` for a console session without the second
   * factor the console app's `--mfa required` asks for (operators too).
   */
  async function consoleCaller(token: string): Promise<ConsoleCaller | 'invalid' | undefined> {
    const adminToken = deps.config.adminToken;
    if (adminToken !== undefined && safeEqual(token, adminToken)) return { actor: { type: 'operator', id: null }, operator: true };
    if (token.startsWith('tk_')) {
      const row = await findLiveApiToken(db, sha256Hex(token), iso(clock.now()));
      return row ? { actor: { type: 'token', id: row.id }, operator: false, token: { tenantId: row.tenant_id, role: row.role, createdBy: row.created_by } } : 'invalid';
    }
    const appId = claimedAudience(token);
    if (appId === undefined || appId !== (await consoleApp())) return undefined;
    const claims = await keys.verifyAccessToken(appId, token);
    const [live, app] = claims ? await Promise.all([sessions.findLiveSession(db, appId, claims.sid, iso(clock.now())), applications.findApplication(db, appId)]) : [];
    if (!claims || !live || live.user_id !== claims.sub) return 'invalid';
    // The console app's own `--mfa required` holds here as on its user routes (read on every request, as
    // there): a session without its second factor may only enroll one, on the console app's routes.
    if (app && needsSecondFactor(app, sessionContext(claims, 'bearer', token))) {
      throw forbidden('the console requires a second factor: enroll one (docs/mfa.md), then use this session', 'mfa_enrollment_required');
    }
    const operator = await isOperator(db, claims.sub);
    return { actor: { type: operator ? 'operator' : 'member', id: claims.sub }, operator, userId: claims.sub };
  }

  return {
    appFromKey,
    consoleCaller,

    /** The live app `appId` and the caller's role in its tenant; undefined when it does not belong there (404). */
    async consoleAppAccess(caller: ConsoleCaller, appId: string): Promise<{ app: Application; role: TenantRole } | undefined> {
      const app = await applications.findApplication(db, appId);
      const role = app && (await roleIn(db, caller, app.tenantId));
      // The console app itself (the system tenant's) is the operator's alone.
      if (!app || role === undefined || (app.id === (await consoleApp()) && !caller.operator)) return undefined;
      return { app, role };
    },

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
