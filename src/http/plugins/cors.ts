import cors from '@fastify/cors';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { allowedOriginsOf } from '../../services/origins.js';
import * as applications from '../../store/repos/applications.js';
import type { Guards } from './guards.js';
import type { Http } from '../types.js';

const PREFLIGHT_CACHE_MS = 30_000;

/**
 * CORS from the apps' allow-lists. A request that names its app (publishable key or verified Host) is
 * checked against that app's list; a preflight, which cannot carry the key's value, against the union of
 * every app's list (cached for 30 s). Credentials are allowed: cookie flows need them.
 */
export async function registerCors(app: Http, deps: Deps, guards: Guards): Promise<void> {
  let cached: { origins: Set<string>; until: number } | undefined;
  async function anyAppAllows(origin: string): Promise<boolean> {
    if (!cached || cached.until < Date.now()) {
      cached = { origins: new Set(await applications.listAllOrigins(deps.db)), until: Date.now() + PREFLIGHT_CACHE_MS };
    }
    return cached.origins.has(origin);
  }

  async function allowed(request: FastifyRequest): Promise<boolean> {
    const origin = request.headers.origin;
    if (typeof origin !== 'string') return false;
    if (request.method === 'OPTIONS') return anyAppAllows(origin);
    const target = await guards.resolvePublishable(request).catch(() => undefined);
    return target ? allowedOriginsOf(target).includes(origin) : false;
  }

  await app.register(cors, {
    delegator: (request, callback) => {
      allowed(request as FastifyRequest).then(
        (ok) =>
          callback(null, {
            origin: ok,
            credentials: true,
            methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
            allowedHeaders: ['content-type', 'authorization', 'x-publishable-key', 'x-request-id'],
            exposedHeaders: ['x-request-id', 'retry-after'],
            maxAge: 600,
          }),
        (error) => callback(error as Error, { origin: false }),
      );
    },
  });
}
