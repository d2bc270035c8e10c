import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { dirname, join } from 'node:path';
import { isIP, type LookupFunction } from 'node:net';
import { bareHost, isPrivateAddress, resolvePublicAddress } from './address-guard.js';

// One delivery attempt: POST the body to the endpoint, connecting only to an address checked after its
// resolution, never following a redirect, reading at most 4 KiB of the answer, all within the timeout.

/** Most of an answer's body that is read; the rest is dropped with the connection. */
export const MAX_RESPONSE_BYTES = 4096;
/** Most of it kept in last_error. */
export const MAX_ERROR_BYTES = 1024;

function packageVersion(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'gatehouse' && pkg.version) return pkg.version;
    } catch {
      // not here
    }
  }
  return '0';
}

export const USER_AGENT = `Gatehouse-Webhooks/${packageVersion()}`;

export interface AttemptResult {
  /** 2xx: delivered. */
  ok: boolean;
  statusCode: number | null;
  /** Why it failed, or the start of the answer's body: at most 1 KiB. */
  error: string | null;
}

export interface SendOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  signal?: AbortSignal;
}

/**
 * Kept-alive connections per node. A kept connection was made to an address checked when it was made; a
 * new one resolves and checks again (the lookup below), so a name re-pointed at a private address is refused.
 */
const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 64 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }) };

function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolvePublicAddress(hostname, allowPrivate).then(
      ({ address, family }) => {
        if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (error: Error) => callback(Object.assign(error, { code: 'ECONNREFUSED' }) as NodeJS.ErrnoException, '', 0),
    );
  };
}

const clip = (text: string) => Buffer.from(text).subarray(0, MAX_ERROR_BYTES).toString('utf8').replace(/\uFFFD+$/, '');

/** Makes one attempt; never throws (every failure is an AttemptResult). */
export async function sendWebhook(options: SendOptions): Promise<AttemptResult> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return { ok: false, statusCode: null, error: 'invalid url' };
  }
  const https = url.protocol === 'https:';
  if (!https && !(options.allowPrivate && url.protocol === 'http:')) return { ok: false, statusCode: null, error: 'the url must use https' };
  // An IP literal is not looked up by the socket: check it here (a name is checked by guardedLookup).
  const host = bareHost(url.hostname);
  if (isIP(host) && !options.allowPrivate && isPrivateAddress(host)) return { ok: false, statusCode: null, error: `${host} is a private address` };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
  const cancel = () => controller.abort(options.signal?.reason ?? new Error('cancelled'));
  options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const post = (fresh: boolean) =>
      new Promise<AttemptResult & { stale?: boolean }>((resolve) => {
        const request = (https ? httpsRequest : httpRequest)(
          url,
          {
            method: 'POST',
            // A kept-alive connection the receiver closed meanwhile fails before any answer: the retry takes a new one.
            agent: fresh ? false : https ? agents.https : agents.http,
            lookup: guardedLookup(options.allowPrivate),
            signal: controller.signal,
            headers: { ...options.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(options.body), 'user-agent': USER_AGENT },
          },
          (response) => void readAnswer(response).then(resolve),
        );
        request.on('error', (error: NodeJS.ErrnoException) => {
          const stale = request.reusedSocket && !controller.signal.aborted && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
          resolve({ ok: false, statusCode: null, stale, error: clip(controller.signal.aborted ? String((controller.signal.reason as Error)?.message ?? error.message) : error.message) });
        });
        request.end(options.body);
      });
    const first = await post(false);
    const { stale, ...result } = first.stale ? await post(true) : first;
    return result;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', cancel);
  }
}

/** Reads up to MAX_RESPONSE_BYTES of the answer, then drops the rest with the connection. */
function readAnswer(response: IncomingMessage): Promise<AttemptResult> {
  const status = response.statusCode ?? 0;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (cut: boolean) => {
      if (cut) response.destroy();
      const text = Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8');
      const ok = status >= 200 && status < 300;
      const redirect = status >= 300 && status < 400 ? `redirect to ${response.headers.location ?? '(no location)'} not followed` : '';
      resolve({ ok, statusCode: status, error: ok ? null : clip(redirect || text || `status ${status}`) });
    };
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_RESPONSE_BYTES) finish(true);
    });
    response.on('end', () => finish(false));
    response.on('error', () => finish(true));
  });
}
