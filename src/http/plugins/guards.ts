import type { FastifyReply, FastifyRequest } from 'fastify';
import { iso } from '../../clock.js';
import { sha256Hex } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { ApiError, forbidden, unauthorized } from '../../errors.js';
import { allowedOriginsOf } from '../../services/apps/origins.js';
import * as applications from '../../store/repos/applications.js';
import type { Application } from '../../store/repos/applications.js';
import * as sessions from '../../store/repos/sessions.js';
import { findKeyAppAndEmailUser, findSessionAuth } from '../../store/repos/session-auth.js';
import { normalizeEmail } from '../../store/repos/users.js';
import { requestCookie, SESSION_COOKIE } from '../cookies.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF (contract.md section 5): a cookie rides along on cross-site requests, so an unsafe request
 * authenticated by a cookie must carry an `Origin` on the resolved app's allow-list (its verified domain
 * included), whatever else it sends: the publishable key is public and proves nothing, and a preflight
 * cannot carry its value. Safe methods change nothing and pass.
 */
export function checkCookieOrigin(request: FastifyRequest, app: Application): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || !allowedOriginsOf(app).includes(origin)) {
    throw forbidden("cookie-authenticated requests must come from one of the application's allowed origins (Origin header)");
  }
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match?.[1];
}

/** The `aud` an access token claims (unverified: it only picks the app to verify the token for). */
function claimedAudience(token: string): string | undefined {
  const payload = token.split('.')[1];
  if (!payload || payload.length > 4096) return undefined;
  try {
    const aud = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { aud?: unknown }).aud;
    return typeof aud === 'string' ? aud : undefined;
  } catch {
    return undefined;
  }
}

export interface Guards {
  /** Publishable: the app from X-Publishable-Key, else from the Host of a verified domain. */
  publishable(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Secret: the app from `Authorization: Bearer sk_...`. */
  secret(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Secret, and still open while the tenant is paused (billing routes: the way to pay). */
  billing(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /**
   * `publishable` for a route whose body names an `email` it next looks up (password sign-in): with a
   * publishable key sent, one statement reads the key's app and that user, and request.emailUser holds
   * what it found.
   */
  publishableWithEmailUser(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Publishable + Session: both, and the session must be live. */
  publishableSession(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Secret, or Publishable + Session (tables, buckets). */
  secretOrSession(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Resolves the app the way `publishable` does but without failing; for routes with other fallbacks. */
  resolvePublishable(request: FastifyRequest, queryKey?: string): Promise<Application | undefined>;
  /** Checks the access token (Bearer or cookie) against the request's app; sets request.session. */
  authenticateSession(request: FastifyRequest): Promise<void>;
  /**
   * `publishable`, unless this node has seen the request's publishable key name an app: then it only sets
   * request.presumedKey, and the route runs through `presumed`.
   */
  presumingPublishable(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** `secretOrSession`, unless this node has seen the request's secret key name an app (as presumingPublishable). */
  presumingSecretOrSession(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Runs the guard a presuming guard skipped (401 or 402 as it would have), setting request.application. */
  confirmPresumed(request: FastifyRequest): Promise<void>;
  /**
   * The work of a route behind a presuming guard. With a presumed key, `gated` does the work with the key
   * checked inside its own statement (KeyGate in store/repos/applications.ts) and answers undefined when
   * that statement found nothing to do (the key not live, the tenant paused, or the route's own miss).
   * Then, or when `gated` throws, the skipped guard runs (its 401 or 402 win, as they would have come
   * first); if it passes, the failure is thrown again, or `checked` does the work the ordinary way and
   * tells the miss exactly. Without a presumed key, `checked` runs alone.
   */
  presumed<T>(request: FastifyRequest, gated: (key: PresumedKey) => Promise<T | undefined>, checked: () => Promise<T>): Promise<T>;
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
 * An app with `--mfa required` (docs/mfa.md): a session that used no second factor may only reach the
 * routes that let its user enroll one (route config `mfaEnrollment`), GET /v1/me and logout. Bots and
 * server-issued sign-in tokens are not asked. Read from the token and the app already loaded: no query.
 */
function enforceMfaPolicy(request: FastifyRequest, app: Application): void {
  const session = request.session!;
  if (!app.mfaRequired || session.aal === 'aal2' || session.amr.includes('bot') || session.amr.includes('token')) return;
  if (request.routeOptions.config.mfaEnrollment) return;
  throw forbidden('this application requires a second factor: enroll one (docs/mfa.md), then use this session', 'mfa_enrollment_required');
}

/** Keys remembered by the guards, of each kind: the keys that named an app, bounded. */
const KEYS_KEPT = 1024;

/** A bounded map: the oldest entry goes first. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.has(key)) return;
  if (map.size >= KEYS_KEPT) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

export function createGuards(deps: Pick<Deps, 'db' | 'clock' | 'keys'>): Guards {
  const { db, clock, keys } = deps;

  // Keys that named an app are remembered with it (bounded; made-up keys are not kept), so a presuming
  // guard can skip the lookup and a publishable key's SHA-256 is not taken again. Publishable keys are
  // public and kept as sent; secret keys only by their hash (as the database keeps them), so they are
  // hashed on every request and no secret stays in memory beyond its request.
  const publishableKeys = new Map<string, { hash: string; appId: string }>();
  const secretKeyApps = new Map<string, string>();
  function publishableKeyHash(key: string): string {
    return publishableKeys.get(key)?.hash ?? sha256Hex(key);
  }

  async function appFromKey(key: string, kind: 'publishable' | 'secret'): Promise<Application | undefined> {
    const hash = kind === 'publishable' ? publishableKeyHash(key) : sha256Hex(key);
    const app = await applications.findApplicationByKeyHash(db, hash, kind, iso(clock.now()));
    if (app && kind === 'publishable') remember(publishableKeys, key, { hash, appId: app.id });
    if (app && kind === 'secret') remember(secretKeyApps, hash, app.id);
    return app;
  }

  /** A joined statement found the app of this live publishable key: remembered, refused if paused, set on the request. */
  function acceptPublishable(request: FastifyRequest, key: string, keyHash: string, app: Application): void {
    remember(publishableKeys, key, { hash: keyHash, appId: app.id });
    refusePaused(app);
    request.application = app;
    request.appVia = 'publishable';
  }

  async function resolvePublishable(request: FastifyRequest, queryKey?: string): Promise<Application | undefined> {
    // Already resolved for this very request (the CORS check asks first, then the guard): one lookup.
    if (queryKey === undefined && request.application && (request.appVia === 'publishable' || request.appVia === 'host')) return request.application;
    const header = request.headers['x-publishable-key'];
    const key = typeof header === 'string' ? header : queryKey;
    if (key !== undefined) {
      const app = key.startsWith('pk_') ? await appFromKey(key, 'publishable') : undefined;
      if (!app) throw unauthorized('invalid publishable key');
      request.application = app;
      request.appVia = 'publishable';
      return app;
    }
    const host = request.hostname?.toLowerCase();
    if (host) {
      const app = await applications.findApplicationByDomain(db, host);
      if (app) {
        request.application = app;
        request.appVia = 'host';
        return app;
      }
    }
    return undefined;
  }

  async function publishable(request: FastifyRequest): Promise<void> {
    const app = await resolvePublishable(request);
    if (!app) throw unauthorized('missing X-Publishable-Key (or a verified-domain Host)');
    refusePaused(app);
  }

  async function publishableWithEmailUser(request: FastifyRequest): Promise<void> {
    const key = request.headers['x-publishable-key'];
    const email = (request.body as { email?: unknown } | undefined)?.email;
    if (request.application || typeof key !== 'string' || !key.startsWith('pk_') || typeof email !== 'string') return publishable(request);
    const keyHash = publishableKeyHash(key);
    const emailNormalized = normalizeEmail(email);
    const found = await findKeyAppAndEmailUser(db, { keyHash, emailNormalized, now: iso(clock.now()) });
    if (!found) throw unauthorized('invalid publishable key');
    acceptPublishable(request, key, keyHash, found.app);
    request.emailUser = { emailNormalized, user: found.user };
  }

  async function secret(request: FastifyRequest): Promise<void> {
    await billing(request);
    refusePaused(request.application);
  }

  async function billing(request: FastifyRequest): Promise<void> {
    const token = bearer(request);
    if (!token) throw unauthorized('missing Authorization: Bearer <secret key>');
    if (token.startsWith('sk_')) {
      const app = await appFromKey(token, 'secret');
      if (!app) throw unauthorized('invalid secret key');
      request.application = app;
      request.appVia = 'secret';
      return;
    }
    // A valid credential without the right for this route is 403; an invalid one stays 401.
    if (token.startsWith('pk_') && (await appFromKey(token, 'publishable'))) {
      throw forbidden('this route needs the secret key, not the publishable key');
    }
    if (await isAccessToken(request, token)) throw forbidden('this route needs the secret key; a session cannot use it');
    throw unauthorized('invalid secret key');
  }

  /**
   * Whether `token` is a valid access token of the request's app (its publishable key or Host) or, when the
   * request names none, of the app the token names: a user's token sent alone is a credential without the
   * right (403). A token of another app than the one the request names stays invalid (401).
   */
  async function isAccessToken(request: FastifyRequest, token: string): Promise<boolean> {
    const app = await resolvePublishable(request).catch(() => undefined);
    const appId = app?.id ?? claimedAudience(token);
    return appId !== undefined && (await keys.verifyAccessToken(appId, token)) !== undefined;
  }

  async function authenticateSession(request: FastifyRequest): Promise<void> {
    const app = request.application;
    if (!app) throw unauthorized('missing X-Publishable-Key');
    refusePaused(app);
    const fromHeader = bearer(request);
    const token = fromHeader ?? requestCookie(request, SESSION_COOKIE);
    if (!token) throw unauthorized('not authenticated');
    const claims = await keys.verifyAccessToken(app.id, token);
    if (!claims) {
      // Cookies are per host name, not per port: two apps served from one host share one __session, and
      // the last sign-in's cookie wins. Say so, rather than a bare "invalid token" that hides why.
      if (!fromHeader && claimedAudience(token) !== app.id && claimedAudience(token) !== undefined) {
        throw unauthorized('the session cookie belongs to another application (two apps on one host name share cookies; see docs/browser.md)');
      }
      throw unauthorized('invalid or expired access token');
    }
    // Session state lives in the database: a revoked session is refused at once, on every node.
    const live = await sessions.findLiveSession(db, app.id, claims.sid, iso(clock.now()));
    if (!live || live.user_id !== claims.sub) throw unauthorized('session is revoked or expired');
    const via = fromHeader ? 'bearer' : 'cookie';
    if (via === 'cookie') checkCookieOrigin(request, app);
    request.session = {
      userId: claims.sub,
      sessionId: claims.sid,
      email: claims.email,
      emailVerified: claims.email_verified,
      via,
      token,
      issuedAt: claims.iat,
      amr: claims.amr,
      aal: claims.aal,
    };
    enforceMfaPolicy(request, app);
  }

  /**
   * The common case of Publishable + Session in one query: the token verified for the app it names (the
   * verified-token cache makes a repeat free), then key → app → live session → user joined. Any miss
   * falls back to the step-by-step path, which answers exactly as before; a hit applies the same checks.
   */
  async function publishableSessionJoined(request: FastifyRequest): Promise<boolean> {
    const key = request.headers['x-publishable-key'];
    if (typeof key !== 'string' || !key.startsWith('pk_')) return false;
    const fromHeader = bearer(request);
    const token = fromHeader ?? requestCookie(request, SESSION_COOKIE);
    // A token verified before names its app without decoding it again; verifyAccessToken checks it anyway.
    const appId = token && (keys.verifiedAudience(token) ?? claimedAudience(token));
    if (!token || !appId) return false;
    const claims = await keys.verifyAccessToken(appId, token);
    if (!claims) return false;
    const keyHash = publishableKeyHash(key);
    const found = await findSessionAuth(db, { keyHash, appId, sessionId: claims.sid, userId: claims.sub, now: iso(clock.now()) });
    if (!found) return false;
    acceptPublishable(request, key, keyHash, found.app);
    const via = fromHeader ? 'bearer' : 'cookie';
    if (via === 'cookie') checkCookieOrigin(request, found.app);
    request.session = { userId: claims.sub, sessionId: claims.sid, email: claims.email, emailVerified: claims.email_verified, via, token, issuedAt: claims.iat, amr: claims.amr, aal: claims.aal };
    enforceMfaPolicy(request, found.app);
    request.sessionUser = found.user;
    return true;
  }

  async function publishableSession(request: FastifyRequest): Promise<void> {
    if (await publishableSessionJoined(request)) return;
    await publishable(request);
    await authenticateSession(request);
  }

  async function secretOrSession(request: FastifyRequest): Promise<void> {
    const token = bearer(request);
    if (token?.startsWith('sk_')) return secret(request);
    return publishableSession(request);
  }

  async function presumingPublishable(request: FastifyRequest): Promise<void> {
    const key = request.headers['x-publishable-key'];
    const known = request.application || typeof key !== 'string' ? undefined : publishableKeys.get(key);
    if (!known) return publishable(request);
    request.presumedKey = { appId: known.appId, keyHash: known.hash, kind: 'publishable' };
  }

  async function presumingSecretOrSession(request: FastifyRequest): Promise<void> {
    const token = bearer(request);
    if (!token?.startsWith('sk_')) return publishableSession(request);
    const keyHash = sha256Hex(token);
    const appId = secretKeyApps.get(keyHash);
    if (!appId) return secret(request);
    // An app the CORS check resolved (from a publishable key or the Host) is not this request's app.
    request.application = undefined;
    request.presumedKey = { appId, keyHash, kind: 'secret' };
    request.appVia = 'secret';
  }

  async function confirmPresumed(request: FastifyRequest): Promise<void> {
    const presumed = request.presumedKey;
    if (!presumed) return;
    request.presumedKey = undefined;
    await (presumed.kind === 'secret' ? secret(request) : publishable(request));
  }

  async function presumed<T>(request: FastifyRequest, gated: (key: PresumedKey) => Promise<T | undefined>, checked: () => Promise<T>): Promise<T> {
    const key = request.presumedKey;
    if (!key) return checked();
    let failure: { error: unknown } | undefined;
    try {
      const done = await gated(key);
      if (done !== undefined) return done;
    } catch (error) {
      failure = { error };
    }
    await confirmPresumed(request);
    if (failure) throw failure.error;
    return checked();
  }

  return {
    publishable,
    publishableWithEmailUser,
    secret,
    billing,
    publishableSession,
    secretOrSession,
    resolvePublishable,
    authenticateSession,
    presumingPublishable,
    presumingSecretOrSession,
    confirmPresumed,
    presumed,
  };
}
