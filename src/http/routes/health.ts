import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { errors } from '../schemas.js';
import type { Http } from '../types.js';

export const VERSION = 'v0.1';

export function healthRoutes(app: Http, deps: Deps): void {
  app.get(
    '/v1/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness and database reachability',
        response: { 200: Type.Object({ status: Type.Literal('ok'), version: Type.String() }), ...errors(503) },
      },
    },
    async () => {
      if (deps.lifecycle.draining) throw new ApiError(503, 'shutting_down', 'shutting down', { headers: { 'retry-after': '1' } });
      try {
        await deps.store.ping();
      } catch (cause) {
        throw new ApiError(503, 'database_unavailable', 'database unreachable', { cause, headers: { 'retry-after': '5' } });
      }
      return { status: 'ok' as const, version: VERSION };
    },
  );
}
