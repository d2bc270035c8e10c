import type { FastifyRequest } from 'fastify';
import type { Guards } from './guards-interface.js';
import type { Deps } from '../../deps.js';
import { badRequest, forbidden, notFound, unauthorized } from '../../errors.js';
import { allowedOriginsOf } from '../../services/apps/origins.js';
import {
  claimedAudience,
  consoleMayCall,
  createCredentials,
  needsSecondFactor,
  refusePaused,
  sessionContext,
  type Application,
  type PresumedKey,
  type SessionContext,
} from '../../services/credentials.js';
import { requestCookie, SESSION_COOKIE } from '../cookies.js';

// The guards of every route: thin adapters over services/credentials.ts, which holds the rules (and says
// how its three ways of answering agree). Here: which header or cookie carries what, and what the answer
// puts on the request.

export { refusePaused, type Guards, type PresumedKey };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF (docs/auth.md): a cookie rides along on cross-site requests, so an unsafe request
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

/** The access token a request carries: `Authorization: Bearer`, else the session cookie. */
function sessionToken(request: FastifyRequest): { token: string; via: 'bearer' | 'cookie' } | undefined {
  const fromHeader = bearer(request);
  if (fromHeader) return { token: fromHeader, via: 'bearer' };
  const fromCookie = requestCookie(request, SESSION_COOKIE);
  return fromCookie ? { token: fromCookie, via: 'cookie' } : undefined;
}

/** `--mfa required` (needsSecondFactor): only the routes configured `mfaEnrollment` stay open to such a session. */
function enforceMfaPolicy(request: FastifyRequest, app: Application): void {
  if (!needsSecondFactor(app, request.session!) || request.routeOptions.config.mfaEnrollment) return;
  throw forbidden('this application requires a second factor: enroll one (docs/mfa.md), then use this session', 'mfa_enrollment_required');
}

export function createGuards(deps: Pick<Deps, 'db' | 'clock' | 'keys' | 'config'>): Guards {
  const credentials = createCredentials(deps);

  function acceptApp(request: FastifyRequest, app: Application, via: 'publishable' | 'secret' | 'host'): void {
    request.application = app;
    request.appVia = via;
  }

  /** A live session found for the request's app: the CSRF rule for a cookie, then the app's MFA policy. */
  function acceptSession(request: FastifyRequest, app: Application, session: SessionContext): void {
    if (session.via === 'cookie') checkCookieOrigin(request, app);
    request.session = session;
    enforceMfaPolicy(request, app);
  }

  async function resolvePublishable(request: FastifyRequest, queryKey?: string): Promise<Application | undefined> {
    // Already resolved for this very request (the CORS check asks first, then the guard): one lookup.
    if (queryKey === undefined && request.application && (request.appVia === 'publishable' || request.appVia === 'host')) return request.application;
    const header = request.headers['x-publishable-key'];
    const key = typeof header === 'string' ? header : queryKey;
    if (key !== undefined) {
      const app = key.startsWith('pk_') ? await credentials.appFromKey(key, 'publishable') : undefined;
      if (!app) throw unauthorized('invalid publishable key');
      acceptApp(request, app, 'publishable');
      return app;
    }
    const host = request.hostname?.toLowerCase();
    const app = host ? await credentials.appOfDomain(host) : undefined;
    if (app) acceptApp(request, app, 'host');
    return app;
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
    const found = await credentials.keyAppAndEmailUser(key, email);
    if (!found) throw unauthorized('invalid publishable key');
    refusePaused(found.app);
    acceptApp(request, found.app, 'publishable');
    request.emailUser = { emailNormalized: found.emailNormalized, user: found.user };
  }

  /**
   * The one authorisation step of app data with a Console credential: "member or token of app X's tenant
   * with role R" becomes the caller "secret key of app X", as the role allows (viewers read). False when
   * `token` is no Console credential; 400 without X-App-Id, 404 for an app of a tenant the caller is not in.
   */
  async function consoleData(request: FastifyRequest, token: string): Promise<boolean> {
    const caller = await credentials.consoleCaller(token);
    if (caller === undefined) return false;
    if (caller === 'invalid') throw unauthorized('invalid, expired or revoked Console credential');
    const appId = request.headers['x-app-id'];
    if (typeof appId !== 'string' || !appId) throw badRequest('a Console credential needs the header X-App-Id: <app_id> on this route', 'app_id_required');
    const access = await credentials.consoleAppAccess(caller, appId);
    if (!access) throw notFound(`application ${appId} not found`);
    if (!consoleMayCall(access.role, request.method, request.routeOptions.url)) throw forbidden('the viewer role may only read (GET, and POST .../rows/query)');
    acceptApp(request, access.app, 'secret');
    request.consoleCaller = caller;
    return true;
  }

  /** A Console credential sent to a route that takes a user's session too: X-App-Id, or no publishable key, says so. */
  const consoleDataInstead = (request: FastifyRequest, token: string | undefined): Promise<boolean> | false =>
    token !== undefined && (request.headers['x-app-id'] !== undefined || request.headers['x-publishable-key'] === undefined) && consoleData(request, token);

  async function consoleGuard(request: FastifyRequest): Promise<void> {
    const token = bearer(request);
    const caller = token === undefined ? undefined : await credentials.consoleCaller(token);
    if (caller === undefined || caller === 'invalid') throw unauthorized('missing or invalid Console credential: Authorization: Bearer <console access token, tk_ token or ADMIN_TOKEN>');
    request.consoleCaller = caller;
  }

  async function secret(request: FastifyRequest): Promise<void> {
    await billing(request);
    refusePaused(request.application);
  }

  async function billing(request: FastifyRequest): Promise<void> {
    const token = bearer(request);
    if (!token) throw unauthorized('missing Authorization: Bearer <secret key>');
    if (token.startsWith('sk_')) {
      const app = await credentials.appFromKey(token, 'secret');
      if (!app) throw unauthorized('invalid secret key');
      acceptApp(request, app, 'secret');
      return;
    }
    if (await consoleData(request, token)) return;
    // A valid credential without the right for this route is 403; an invalid one stays 401.
    if (token.startsWith('pk_') && (await credentials.appFromKey(token, 'publishable'))) {
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
    return appId !== undefined && (await credentials.verifyToken(appId, token)) !== undefined;
  }

  async function authenticateSession(request: FastifyRequest): Promise<void> {
    const app = request.application;
    if (!app) throw unauthorized('missing X-Publishable-Key');
    refusePaused(app);
    const carried = sessionToken(request);
    if (!carried) throw unauthorized('not authenticated');
    const found = await credentials.liveSession(app, carried.token);
    if (found === 'invalid') {
      // Cookies are per host name, not per port: two apps served from one host share one __session, and
      // the last sign-in's cookie wins. Say so, rather than a bare "invalid token" that hides why.
      const audience = claimedAudience(carried.token);
      if (carried.via === 'cookie' && audience !== app.id && audience !== undefined) {
        throw unauthorized('the session cookie belongs to another application (two apps on one host name share cookies; see docs/browser.md)');
      }
      throw unauthorized('invalid or expired access token');
    }
    if (found === 'revoked') throw unauthorized('session is revoked or expired');
    acceptSession(request, app, sessionContext(found, carried.via, carried.token));
  }

  async function publishableSession(request: FastifyRequest): Promise<void> {
    // The joined statement first (GET /v1/me's whole database work); any miss goes step by step.
    const key = request.headers['x-publishable-key'];
    const carried = typeof key === 'string' && key.startsWith('pk_') ? sessionToken(request) : undefined;
    const found = carried && (await credentials.joinedSession(key as string, carried.token));
    if (found) {
      refusePaused(found.app);
      acceptApp(request, found.app, 'publishable');
      acceptSession(request, found.app, sessionContext(found.claims, carried.via, carried.token));
      request.sessionUser = found.user;
      return;
    }
    await publishable(request);
    await authenticateSession(request);
  }

  async function secretOrSession(request: FastifyRequest): Promise<void> {
    const token = bearer(request);
    if (token?.startsWith('sk_')) return secret(request);
    if (await consoleDataInstead(request, token)) return refusePaused(request.application);
    return publishableSession(request);
  }

  async function presumingPublishable(request: FastifyRequest): Promise<void> {
    const key = request.headers['x-publishable-key'];
    const presumed = request.application || typeof key !== 'string' ? undefined : credentials.presumedKey(key, 'publishable');
    if (!presumed) return publishable(request);
    request.presumedKey = presumed;
  }

  async function presumingSecretOrSession(request: FastifyRequest): Promise<void> {
    const token = bearer(request);
    if (!token?.startsWith('sk_')) return (await consoleDataInstead(request, token)) ? refusePaused(request.application) : publishableSession(request);
    const presumed = credentials.presumedKey(token, 'secret');
    if (!presumed) return secret(request);
    // An app the CORS check resolved (from a publishable key or the Host) is not this request's app.
    request.application = undefined;
    request.presumedKey = presumed;
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
    console: consoleGuard,
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
