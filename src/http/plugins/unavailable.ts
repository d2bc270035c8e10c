import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import type { ApiError } from '../../errors.js';
import { LogThrottle } from '../../observability/log-throttle.js';
import { connectionFailure, type ConnectionFailure } from '../../services/availability.js';

/** Seconds a client is told to wait (Retry-After) when the database is unavailable. */
export const RETRY_AFTER_SECONDS = 5;
const LOG_EVERY_MS = 10_000;

/**
 * Counts every request refused for an outage and logs one `warn` line per cause every 10 seconds (with
 * how many were not logged since, and the cause's message: no stack), so an outage under load is a
 * handful of lines, not one stack per request. Database failures of any route, failed health probes and
 * blob store failures share it: an outage is reported once, whichever requests meet it.
 */
export function outageReporter(deps: Pick<Deps, 'metrics'>) {
  const throttle = new LogThrottle(LOG_EVERY_MS);
  const database = (cause: ConnectionFailure, error: unknown, request: FastifyRequest): void => {
    deps.metrics.databaseUnavailable.inc({ cause });
    const suppressed = throttle.admit(`database_unavailable:${cause}`);
    if (suppressed === undefined) return;
    request.log.warn(
      { code: 'database_unavailable', cause, error: (error as Error)?.message, suppressed },
      'database unavailable: answering 503 with Retry-After (one line per cause every 10 s)',
    );
  };
  const outage = (error: ApiError, request: FastifyRequest): void => {
    const cause = connectionFailure(error.cause) ?? 'other';
    if (error.code === 'database_unavailable') deps.metrics.databaseUnavailable.inc({ cause });
    const suppressed = throttle.admit(`${error.code}:${cause}`);
    if (suppressed === undefined) return;
    request.log.warn(
      { code: error.code, cause, error: (error.cause as Error | undefined)?.message, suppressed },
      `${error.detail}: answering ${error.status} with Retry-After (one line per cause every 10 s)`,
    );
  };
  return { database, outage };
}
