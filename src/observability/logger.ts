import { EventEmitter } from 'node:events';
import { closeSync, writeSync } from 'node:fs';
import { maskEmailsIn } from './mask-email.js';
import { pino, type Bindings, type ChildLoggerOptions, type Level, type LevelWithSilentOrString, type Logger } from 'pino';

// Query parameters that carry one-time secrets (email links, SSO hops, OAuth codes) never reach a log line.
const SECRET_PARAMS = new Set(['token', '__sso_token', 'nonce', 'code', 'state', 'refresh_token', 'publishable_key']);

/** A parameter's name as the query parser reads it (`%74oken` is `token`), lower-cased. */
function paramName(raw: string): string {
  if (!raw.includes('%') && !raw.includes('+')) return raw.toLowerCase();
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/**
 * The URL with the value of every secret-carrying query parameter replaced by `[redacted]`, and any email
 * address in it masked (`GET /v1/users?email=...`: docs/privacy.md).
 */
export function scrubUrl(url: string): string {
  return maskEmailsIn(redactSecretParams(url));
}

function redactSecretParams(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const hash = url.indexOf('#', query);
  const end = hash < 0 ? url.length : hash;
  const pairs = url.slice(query + 1, end).split('&');
  for (let i = 0; i < pairs.length; i++) {
    const eq = pairs[i]!.indexOf('=');
    if (eq >= 0 && SECRET_PARAMS.has(paramName(pairs[i]!.slice(0, eq)))) pairs[i] = `${pairs[i]!.slice(0, eq)}=[redacted]`;
  }
  return `${url.slice(0, query + 1)}${pairs.join('&')}${url.slice(end)}`;
}

/** How long a log line may wait in the buffer when traffic is too light to fill a write. */
export const LOG_FLUSH_MS = 200;

/**
 * The most one write carries when several processes share standard output (`serve --workers N`):
 * PIPE_BUF, so their writes to one pipe never interleave.
 */
export const SHARED_BATCH_BYTES = 4096;
/**
 * The most one write carries when the process writes standard output alone: one system call per about
 * 250 request lines instead of 16 (each write costs several microseconds on a virtual machine,
 * bench/README.md).
 */
export const OWN_BATCH_BYTES = 64 * 1024;
/** How long a write waits before trying again when the reader has not drained the pipe (EAGAIN). */
const BUSY_WAIT_MS = 10;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Standard output in batches: lines are queued and written in batches of whole lines, at most
 * PIPE_BUF = 4096 bytes per write when several workers share the output (so their lines never interleave
 * on a pipe), 64 KiB when the process writes it alone; whatever is queued is written at least every
 * LOG_FLUSH_MS and when the process exits.
 *
 * The writes are synchronous, so the queue never holds more than one batch. Asynchronous writes (libuv's
 * thread pool, one batch in flight) finish one batch per turn of the event loop, and a loaded turn logs
 * more than that: under a sustained /v1/health load half the lines were still queued when the load
 * stopped, and the queue grew the heap by about 8 MB a second without bound (bench/README.md, "Memory
 * under load"). A batched write is one system call per 16 lines or more, cheaper than a thread-pool round trip;
 * a reader that cannot keep up slows the server instead of filling its memory.
 *
 * Written here rather than with pino.destination (sonic-boom), which does the same in sync mode but
 * measures the UTF-8 length of the whole pending batch on every line: it flattens and scans up to 4 KB per
 * line (about 4 % of a /v1/health request's CPU, bench/README.md). Here each line is encoded once into the
 * batch's buffer, and only a line that may not fit is measured.
 * A reader that has not drained the pipe (EAGAIN) is waited for, as sonic-boom does; any other write error
 * (the reader is gone, the disk is full) drops the batch rather than stopping the service.
 */
export class BatchedLines extends EventEmitter {
  /** The batch, encoded as lines come: no array of lines, no join, no second encoding when written. */
  private readonly batch: Buffer;
  private used = 0;
  private readonly timer: NodeJS.Timeout;
  /** A batch this full is written at once rather than waiting for another line. */
  private readonly full: number;

  constructor(
    private readonly fd: number,
    private readonly batchBytes = SHARED_BATCH_BYTES,
  ) {
    super();
    this.batch = Buffer.allocUnsafe(batchBytes);
    this.full = batchBytes - 96;
    this.timer = setInterval(() => this.flushSync(), LOG_FLUSH_MS).unref();
  }

  write(line: string): boolean {
    // A UTF-16 code unit is at most 3 bytes of UTF-8: only a line that may not fit is measured. Room is
    // measured again after a flush (a 'write' listener may have logged during it).
    for (let room = this.batchBytes - this.used; line.length * 3 > room; room = this.batchBytes - this.used) {
      const size = Buffer.byteLength(line);
      if (size <= room) break;
      this.flushSync();
      // Longer than a whole batch: written alone.
      if (size > this.batchBytes) return (this.writeAll(Buffer.from(line)), true);
    }
    this.used += this.batch.write(line, this.used);
    if (this.used >= this.full) this.flushSync();
    return true;
  }

  /** Writes whatever is queued, now, in one write. */
  flushSync(): void {
    if (this.used === 0) return;
    const size = this.used;
    this.used = 0;
    this.writeAll(this.batch.subarray(0, size));
  }

  /** pino's logger.flush(). */
  flush(done?: (error?: Error) => void): void {
    this.flushSync();
    done?.();
  }

  /** Stops the timer and closes the descriptor (not standard output or error). */
  destroy(): void {
    this.flushSync();
    clearInterval(this.timer);
    if (this.fd > 2) closeSync(this.fd);
  }

  end(): void {
    this.destroy();
  }

  /**
   * Writes the bytes, waiting out EAGAIN. The 'write' events (each system call's byte count) are emitted
   * only once the bytes are out: a listener that logs then writes into a batch no write is still reading.
   */
  private writeAll(bytes: Buffer): void {
    const writes: number[] = [];
    let data = bytes;
    for (;;) {
      try {
        const written = writeSync(this.fd, data);
        if (written > 0) writes.push(written);
        // All written; or nothing could be (a descriptor that takes no bytes): the batch is dropped.
        if (written >= data.length || written === 0) break;
        data = data.subarray(written);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') break;
        Atomics.wait(sleeper, 0, 0, BUSY_WAIT_MS);
      }
    }
    for (const written of writes) this.emit('write', written);
  }
}

export function batchedStdout(fd = 1, batchBytes = SHARED_BATCH_BYTES): BatchedLines {
  const stream = new BatchedLines(fd, batchBytes);
  // Lines still queued when the process exits.
  process.once('exit', () => stream.flushSync());
  return stream;
}

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

/** What the access line says of a request (Fastify's request). */
interface AccessedRequest {
  id: string;
  method: string;
  url: string;
  /** The Host (or trusted X-Forwarded-Host) the hostname is read from: the memo's key. */
  host?: string;
  hostname?: string;
  ip?: string;
}

/** Printable ASCII but `"` and `\`: such a string is its own JSON text between quotes. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A string as JSON; most are plain, and a regular expression test costs less than JSON.stringify. */
const quoted = (value: string) => (PLAIN.test(value) ? `"${value}"` : JSON.stringify(value));

const jsonField = (name: string, value: string | undefined) => (value === undefined ? '' : `,"${name}":${quoted(value)}`);

/**
 * A copy of a string in V8's one-byte representation when its characters allow it. V8's optimizing
 * compiler builds `${number}` inside a template as a two-byte string, and one two-byte piece makes the
 * whole line two-byte: flattened to twice the bytes, then encoded to UTF-8 from UTF-16 (about 1.5 % of a
 * /v1/health request's CPU, bench/README.md). latin1 decoding always makes a one-byte string.
 */
const oneByte = (text: string) => (/^[\x00-\xff]*$/.test(text) ? Buffer.from(text, 'latin1').toString('latin1') : text);

/**
 * The value a memo last saw and what it made of it. A keep-alive client sends the same method, Host and
 * address on request after request: a string comparison answers instead of Fastify's hostname getter (a
 * split) and a regular expression test per field. `from` is what `make` reads, `key` what it depends on
 * (a hostname is made from the request, and depends only on its host).
 */
class Memo<K, S = K> {
  private key: K | undefined;
  private value = '';
  private primed = false;

  constructor(private readonly make: (from: S) => string) {}

  get(key: K, from: S): string {
    if (!this.primed || key !== this.key) {
      this.primed = true;
      this.key = key;
      this.value = oneByte(this.make(from));
    }
    return this.value;
  }
}

/**
 * The one access line per request, written to the process logger's destination in pino's own format
 * (level number, time, the logger's base bindings, message key): the line pino writes for
 * `{reqId, req, res, responseTime}` through the `req`/`res` serializers above, built directly. pino would
 * walk every key through its serializers and its stringifier and redaction: about three times the CPU
 * here, on every request (bench/README.md). Nothing on it needs redaction: the URL goes through scrubUrl,
 * and no header, cookie or body is on it. The pieces that repeat from request to request (method, host,
 * address, status) are made once and kept (Memo, statusField), so the line is mostly one concatenation.
 */
export function accessLine(log: Logger): (request: AccessedRequest, statusCode: number, responseTime: number) => void {
  const internals = log as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as { write(line: string): unknown };
  const head = oneByte(`{"level":${log.levels.values.info},"time":`);
  const base = oneByte(internals[pino.symbols.chindingsSym] as string);
  const method = new Memo((name: string) => `,"req":{"method":${quoted(name)}`);
  // The hostname is a function of the host (Fastify's getter splits request.host); a request without a
  // host (tests' plain objects) is read each time.
  const host = new Memo<string, AccessedRequest>((request) => jsonField('host', request.hostname));
  const ip = new Memo((address: string | undefined) => `${jsonField('ip', address)}}`);
  const statuses = new Map<number, string>();
  const statusField = (code: number) => {
    let field = statuses.get(code);
    if (field === undefined) statuses.set(code, (field = oneByte(`,"res":{"statusCode":${code}},"responseTime":`)));
    return field;
  };
  return (request, statusCode, responseTime) => {
    if (!log.isLevelEnabled('info')) return;
    stream.write(
      `${head}${Date.now()}${base},"reqId":${quoted(request.id)}${method.get(request.method, request.method)},"url":${quoted(scrubUrl(request.url))}` +
        // Milliseconds to the microsecond: the shortest form of the full double costs more than the line's strings.
        `${request.host === undefined ? jsonField('host', request.hostname) : host.get(request.host, request)}${ip.get(request.ip, request.ip)}${statusField(statusCode)}${responseTime.toFixed(3)},"msg":"request completed"}\n`,
    );
  };
}

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

  private log(level: Level, args: unknown[]): void {
    (this.logger[level] as (...args: unknown[]) => void)(...args);
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
  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.log('error', args);
  }
  warn(...args: unknown[]): void {
    this.log('warn', args);
  }
  info(...args: unknown[]): void {
    this.log('info', args);
  }
  debug(...args: unknown[]): void {
    this.log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.log('trace', args);
  }
  silent(): void {}
}

/** Fastify's `childLoggerFactory`: request loggers made on first use (RequestLogger). */
export function requestLoggerFactory(logger: Logger, bindings: Bindings, options: ChildLoggerOptions): Logger {
  return new RequestLogger(logger, bindings, options) as unknown as Logger;
}

export type { Logger };
