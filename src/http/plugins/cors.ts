import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Deps } from '../../deps.js';
import type { ErrorCode } from '../../errors.js';
import { allowedOriginsOf, listAllOrigins, originsVersion } from '../../services/apps/origins.js';
import type { Guards } from './guards.js';

// The union is trusted this long without asking; a miss asks at once (see unionCache).
const UNION_TRUST_MS = 1_000;
const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = 'content-type, authorization, x-publishable-key, x-request-id';
// A page reads {detail, code} of any answer, the request id to quote in a bug report, and when to retry.
const EXPOSED_HEADERS = 'x-request-id, retry-after';

/**
 * CORS from the apps' allow-lists (contract 5), on every answer, errors included: the root's onRequest
 * hook (app.ts) runs it before guards, handlers and the 404 handler, and headers set here survive the error writer.
 * A request that names its app (publishable key or verified Host) is checked against that app's list;
 * before the app is known (no key, an unknown key, a preflight, which cannot carry the key's value),
 * against the union of every app's list (unionCache: a new origin works at once on every node, a removed
 * one stops within a second; the last good copy is kept when the database is away, so a page can still
 * read health's 503).
 */
export function corsHook(deps: Deps, guards: Guards): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  const anyAppAllows = unionCache(deps);

  async function allowed(request: FastifyRequest, origin: string): Promise<boolean> {
    const target = await guards.resolvePublishable(request).catch(() => undefined);
    if (target) return allowedOriginsOf(target).includes(origin);
    return anyAppAllows(origin);
  }

  function allowOrigin(reply: FastifyReply, origin: string): void {
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-allow-credentials', 'true');
  }

  /** Answers a preflight (true: the reply is sent) or adds the allow headers to a request from an allowed origin. */
  async function decide(request: FastifyRequest, reply: FastifyReply, origin: string): Promise<boolean> {
    const preflight = request.method === 'OPTIONS' && typeof request.headers['access-control-request-method'] === 'string';
    if (preflight) {
      if (!(await anyAppAllows(origin))) {
        request.log.info({ origin }, 'preflight from an origin on no allow-list');
        reply.code(403).send({ detail: `origin ${origin} is not on any application's allow-list`, code: 'origin_not_allowed' satisfies ErrorCode });
        return true;
      }
      allowOrigin(reply, origin);
      reply.header('access-control-allow-methods', METHODS);
      reply.header('access-control-allow-headers', ALLOWED_HEADERS);
      reply.header('access-control-max-age', '600');
      reply.code(204).send();
      return true;
    }
    if (await allowed(request, origin)) {
      allowOrigin(reply, origin);
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    }
    return false;
  }

  // Callback-style: a request without Origin (servers, curl, same-origin GETs) costs no promise.
  return (request, reply, done) => {
    reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (typeof origin !== 'string') return done();
    decide(request, reply, origin).then((sent) => {
      if (!sent) done();
    }, done);
  };
}

/**
 * The union of every app's allow-list, as one node knows it. Apps and their origins are written by any
 * node or by the CLI, so no write can tell this cache; instead it asks the database for originsVersion (one
 * row) when an origin is not in it, or when it was last confirmed over a second ago, and reloads the union
 * only when that changed. The first preflight of a new app's page therefore succeeds on any node. Concurrent
 * checks share one question, so a flood of refused preflights costs one small query at a time.
 */
function unionCache(deps: Deps): (origin: string) => Promise<boolean> {
  let union: { origins: Set<string>; version: string; confirmedAt: number } | undefined;
  let checking: Promise<void> | undefined;

  async function check(): Promise<void> {
    const version = await originsVersion(deps);
    if (union?.version === version) {
      union.confirmedAt = Date.now();
      return;
    }
    const origins = new Set(await listAllOrigins(deps));
    union = { origins, version, confirmedAt: Date.now() };
  }

  return async (origin) => {
    const fresh = union && Date.now() - union.confirmedAt < UNION_TRUST_MS;
    if (!fresh || !union!.origins.has(origin)) {
      checking ??= check().finally(() => (checking = undefined));
      try {
        await checking;
      } catch {
        if (!union) return false;
      }
    }
    return union!.origins.has(origin);
  };
}
