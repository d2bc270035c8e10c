import { pino, type Bindings, type ChildLoggerOptions, type Level, type LevelWithSilentOrString, type Logger } from 'pino';
import { batchedStdout, SHARED_BATCH_BYTES } from './batched-stdout.js';
import { maskEmailsIn } from './mask-email.js';
import { scrubUrl } from './scrub-url.js';

// The process logger. Its pieces are in their own files: scrub-url.ts (secret query parameters),
// batched-stdout.ts (its destination), access-line.ts (the per-request line); they are
// re-exported here for the logger's own tests.
export { scrubUrl } from './scrub-url.js';
export { BatchedLines, batchedStdout, LOG_FLUSH_MS, OWN_BATCH_BYTES, SHARED_BATCH_BYTES } from './batched-stdout.js';
export { accessLine } from './access-line.js';

/**
 * The process logger: JSON lines, secrets redacted by path. accessLine writes pino's line format itself:
 * a `formatters`, `messageKey`, `timestamp` or `mixin` option here must be mirrored there. Request lines carry the request id
 * (Fastify's child loggers add `reqId`).
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream, batchBytes = SHARED_BATCH_BYTES): Logger {
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
      // Whatever a line holds (a recipient, a database error quoting a row), no email address leaves in clear.
      hooks: { streamWrite: maskEmailsIn },
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
    (destination ?? batchedStdout(1, batchBytes)) as never,
  );
}

const LEVELS: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/**
 * Fastify's per-request logger (`request.log`), made on its first use. Fastify makes one for every
 * request, and a pino child costs about as much as the request's whole access line (its bindings are
 * serialised when it is made); the access line is written by the onResponse hook with the request id, so
 * most requests never log through their own child. A request that does gets the same child as before
 * (`reqId` bound), made then.
 */
class RequestLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly childBindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): Logger {
    return (this.made ??= this.parent.child(this.childBindings, this.options));
  }

  get level(): LevelWithSilentOrString {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }
  set level(level: LevelWithSilentOrString) {
    this.logger.level = level;
  }
  isLevelEnabled(level: Level): boolean {
    return this.logger.isLevelEnabled(level);
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.logger.child(bindings, options);
  }
  bindings(): Bindings {
    return this.logger.bindings();
  }
  // fatal, error, warn, info, debug and trace: each logs through the child (made on the first line).
  static {
    for (const level of LEVELS) {
      RequestLogger.prototype[level] = function (this: RequestLogger, ...args: unknown[]) {
        (this.logger[level] as (...args: unknown[]) => void)(...args);
      };
    }
  }
  silent(): void {}
}
/** The level methods the static block puts on the prototype. */
interface RequestLogger extends Record<Level, (...args: unknown[]) => void> {}

/** Fastify's `childLoggerFactory`: request loggers made on first use (RequestLogger). */
export function requestLoggerFactory(logger: Logger, bindings: Bindings, options: ChildLoggerOptions): Logger {
  return new RequestLogger(logger, bindings, options) as unknown as Logger;
}

export type { Logger };
