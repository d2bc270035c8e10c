import { pino, type Logger } from 'pino';

// Query parameters that carry one-time secrets (email links, SSO hops, OAuth codes) never reach a log line.
const SECRET_PARAMS = /([?&](?:token|__sso_token|code|state|refresh_token|publishable_key)=)[^&#]*/gi;

export function scrubUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]');
}

/**
 * Standard output without blocking the event loop: lines are queued and written by libuv, whole lines
 * per write and at most PIPE_BUF (4096) bytes each, so several workers' lines never interleave on a
 * pipe. pino flushes what is queued when the process exits (shutdown included).
 */
export const asyncStdout = () => pino.destination({ dest: 1, sync: false, maxWrite: 4096 });

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
export type { Logger };
