// The one access line per request, written in pino's line format without pino's per-key work.
import { pino, type Logger } from 'pino';
import { scrubUrl } from './scrub-url.js';

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
 * `{reqId, req, res, responseTime}` through the `req`/`res` serializers of logger.ts, built directly. pino would
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
