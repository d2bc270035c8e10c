import type { FastifyReply, FastifyRequest } from 'fastify';
import { iso } from '../../clock.js';
import { sha256Hex } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { forbidden, unauthorized } from '../../errors.js';
import { allowedOriginsOf } from '../../services/origins.js';
import * as applications from '../../store/repos/applications.js';
import type { Application } from '../../store/repos/applications.js';
import * as sessions from '../../store/repos/sessions.js';

export const SESSION_COOKIE = '__session';
export const REFRESH_COOKIE = '__refresh';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match?.[1];
}

export interface Guards {
  /** Publishable: the app from X-Publishable-Key, else from the Host of a verified domain. */
  publishable(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Secret: the app from `Authorization: Bearer sk_...`. */
  secret(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Publishable + Session: both, and the session must be live. */
  publishableSession(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Secret, or Publishable + Session (tables, buckets). */
  secretOrSession(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Resolves the app the way `publishable` does but without failing; for routes with other fallbacks. */
  resolvePublishable(request: FastifyRequest, queryKey?: string): Promise<Application | undefined>;
  /** Checks the access token (Bearer or cookie) against the request's app; sets request.session. */
  authenticateSession(request: FastifyRequest): Promise<void>;
}

export function createGuards(deps: Pick<Deps, 'db' | 'clock' | 'keys'>): Guards {
  const { db, clock, keys } = deps;

  function appFromKey(key: string, kind: 'publishable' | 'secret'): Promise<Application | undefined> {
    return applications.findApplicationByKeyHash(db, sha256Hex(key), kind, iso(clock.now()));
  }

  async function resolvePublishable(request: FastifyRequest, queryKey?: string): Promise<Application | undefined> {
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
    if (!(await resolvePublishable(request))) {
      throw unauthorized('missing X-Publishable-Key (or a verified-domain Host)');
    }
  }

  async function secret(request: FastifyRequest): Promise<void> {
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
    const app = await resolvePublishable(request).catch(() => undefined);
    if (app && (await keys.verifyAccessToken(app.id, token))) {
      throw forbidden('this route needs the secret key; a session cannot use it');
    }
    throw unauthorized('invalid secret key');
  }

  async function authenticateSession(request: FastifyRequest): Promise<void> {
    const app = request.application;
    if (!app) throw unauthorized('missing X-Publishable-Key');
    const fromHeader = bearer(request);
    const token = fromHeader ?? request.cookies?.[SESSION_COOKIE];
    if (!token) throw unauthorized('not authenticated');
    const claims = await keys.verifyAccessToken(app.id, token);
    if (!claims) throw unauthorized('invalid or expired access token');
    // Session state lives in the database: a revoked session is refused at once, on every node.
    const live = await sessions.findLiveSession(db, app.id, claims.sid, iso(clock.now()));
    if (!live || live.user_id !== claims.sub) throw unauthorized('session is revoked or expired');
    const via = fromHeader ? 'bearer' : 'cookie';
    // CSRF: a cookie rides along on cross-site requests, so unsafe methods must prove the caller is the app.
    if (via === 'cookie' && !SAFE_METHODS.has(request.method) && request.appVia !== 'publishable') {
      const origin = request.headers.origin;
      if (typeof origin !== 'string' || !allowedOriginsOf(app).includes(origin)) {
        throw forbidden('cookie-authenticated requests must send X-Publishable-Key or an allowed Origin');
      }
    }
    request.session = {
      userId: claims.sub,
      sessionId: claims.sid,
      email: claims.email,
      emailVerified: claims.email_verified,
      via,
      token,
    };
  }

  async function publishableSession(request: FastifyRequest): Promise<void> {
    await publishable(request);
    await authenticateSession(request);
  }

  async function secretOrSession(request: FastifyRequest): Promise<void> {
    const token = bearer(request);
    if (token?.startsWith('sk_')) return secret(request);
    return publishableSession(request);
  }

  return { publishable, secret, publishableSession, secretOrSession, resolvePublishable, authenticateSession };
}
