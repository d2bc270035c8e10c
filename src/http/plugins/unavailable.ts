import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import type { ConnectionFailure } from '../../store/dialect.js';

/** Seconds a client is told to wait (Retry-After) when the database is unavailable. */
export const RETRY_AFTER_SECONDS = 5;
const LOG_EVERY_MS = 10_000;

/**
 * Counts every request refused for a database outage and logs one line per cause every 10 seconds
 * (with how many were not logged since), so an outage under load is a handful of lines, not one stack
 * per request.
 */
export function databaseOutageReporter(deps: Pick<Deps, 'metrics'>) {
  const last = new Map<ConnectionFailure, { at: number; suppressed: number }>();
  return (cause: ConnectionFailure, error: unknown, request: FastifyRequest): void => {
    deps.metrics.databaseUnavailable.inc({ cause });
    const now = Date.now();
    const seen = last.get(cause);
    if (seen && now - seen.at < LOG_EVERY_MS) {
      seen.suppressed++;
      return;
    }
    last.set(cause, { at: now, suppressed: 0 });
    const message = (error as Error)?.message;
    request.log.warn(
      { code: 'database_unavailable', cause, error: message, suppressed: seen?.suppressed ?? 0 },
      'database unavailable: answering 503 with Retry-After (one line per cause every 10 s)',
    );
  };
}
