import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { RELEASE } from '../../release.js';
import { errors } from '../schemas.js';
import type { Http } from '../types.js';

export const VERSION = 'v0.1';

/**
 * How long a database probe that succeeded answers the health checks after it. Health is public: without
 * this, every unauthenticated request would cost the database a round trip, and a flood of them would
 * take the database's cores from the requests that matter. So the database sees at most one probe per
 * this interval from each node, and a database that goes away is reported within it. A failed probe is
 * never reused: the next check probes again.
 */
export const PROBE_REUSE_MS = 50;

/** `version` is the API's (it stays v0.1); `release` names the build (src/release.ts). */
const OK = { status: 'ok' as const, version: VERSION, release: RELEASE.name };
const LIVE = { status: 'ok' as const };

export function healthRoutes(app: Http, deps: Deps): void {
  let probedOkUntil = 0;
  async function probe() {
    try {
      await deps.store.ping();
    } catch (cause) {
      // Probed every few seconds by every balancer: logged once per outage, not once per probe.
      throw new ApiError(503, 'database_unavailable', 'database unreachable', { cause, headers: { 'retry-after': '5' }, outage: true });
    }
    probedOkUntil = performance.now() + PROBE_REUSE_MS;
    return OK;
  }

  app.get(
    '/v1/health',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['health'],
        summary: 'Readiness: the database answers and the node is not shutting down (503 names what is down)',
        response: { 200: Type.Object({ status: Type.Literal('ok'), version: Type.String(), release: Type.String() }), ...errors(503) },
      },
    },
    // Not async: a check answered from a recent probe costs no promise.
    () => {
      if (deps.lifecycle.draining) throw new ApiError(503, 'shutting_down', 'shutting down', { headers: { 'retry-after': '1' }, outage: true });
      return performance.now() < probedOkUntil ? OK : probe();
    },
  );
  livenessRoute(app);
}

/**
 * Liveness: the process answers. No dependency is checked (a database outage must not make an
 * orchestrator restart every node), and it stays 200 while the node drains after SIGTERM.
 */
function livenessRoute(app: Http): void {
  app.get(
    '/v1/health/live',
    {
      schema: {
        operationId: 'getLiveness',
        tags: ['health'],
        summary: 'Liveness: the process answers (no dependency checked)',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    () => LIVE,
  );
}
