import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Application, PresumedKey } from '../../services/credentials.js';

/** What each guard of http/plugins/guards.ts checks before a route runs (the route's auth mode). */
export interface Guards {
  /** Publishable: the app from X-Publishable-Key, else from the Host of a verified domain. */
  publishable(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Secret: the app from `Authorization: Bearer sk_...`, or a Console credential with `X-App-Id` (docs/management.md). */
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
  /** Console: a Management API credential (ADMIN_TOKEN, a tenant API token, a console session); sets request.consoleCaller. */
  console(request: FastifyRequest, reply: FastifyReply): Promise<void>;
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
