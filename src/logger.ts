import { pino, type Logger } from 'pino';

// Query parameters that carry one-time secrets (email links, SSO hops, OAuth codes) never reach a log line.
const SECRET_PARAMS = /([?&](?:token|__sso_token|code|state|refresh_token|publishable_key)=)[^&#]*/gi;

export function scrubUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]');
}

/** How long a log line may wait in the buffer when traffic is too light to fill a write. */
export const LOG_FLUSH_MS = 200;

/**
 * Standard output without blocking the event loop: lines are queued and written by libuv in batches of
 * about 4 KB (whole lines, at most PIPE_BUF = 4096 bytes per write, so several workers' lines never
 * interleave on a pipe), and whatever is queued is written at least every LOG_FLUSH_MS. One write per
 * line cost a thread-pool round trip per request, more CPU than the rest of a /v1/health answer
 * (bench/README.md). pino flushes what is queued when the process exits (shutdown included).
 */
export const asyncStdout = () => pino.destination({ dest: 1, sync: false, maxWrite: 4096, minLength: 4000, periodicFlush: LOG_FLUSH_MS });

/**
 * The process logger: JSON lines, secrets redacted by path. Request lines carry the request id
 * (Fastify's child loggers add `reqId`).
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          '*.password',
          '*.refresh_token',
          '*.access_token',
          '*.secret_key',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (request: { method: string; url: string; ip?: string; hostname?: string }) => ({
          method: request.method,
          url: scrubUrl(request.url),
          host: request.hostname,
          ip: request.ip,
        }),
        res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
      },
    },
    (destination ?? asyncStdout()) as never,
  );
}

/**
 * The per-request access line's logger: the process logger's destination, level and serializers,
 * without path redaction. The line holds only what the `req`/`res` serializers keep (method, scrubbed
 * URL, host, IP, status), the request id and the latency, so there is nothing to redact; skipping the
 * redaction pass cuts the line's cost by two thirds (bench/README.md). Every other line keeps it.
 */
export function accessLogger(log: Logger): Logger {
  return log.child({}, { redact: { paths: [] } });
}
export type { Logger };
