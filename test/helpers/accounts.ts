import { expect } from 'vitest';
import { api, type JsonResponse, type TestApp } from './fixtures.js';
import { getProof } from './hashcash.js';
import { sharedServer, startServer, type TestServer } from './server.js';
import { onWorkerEnd } from './worker-processes.js';
import { extractCode, extractLink, startSmtpSink, type SmtpSink } from './smtp-sink.js';

export interface AuthEnv {
  server: TestServer;
  sink: SmtpSink;
  stop(): Promise<void>;
}

/** A server that sends its mail to a real SMTP sink the test can read. */
export async function startAuthServer(env: Record<string, string> = {}): Promise<AuthEnv> {
  const sink = await startSmtpSink();
  const server = await startServer({ SMTP_URL: sink.url, ...env });
  return {
    server,
    sink,
    stop: async () => {
      await server.stop();
      await sink.close();
    },
  };
}

/** The SMTP sink of this worker's shared auth servers (sharedAuthServer), opened on first use, closed with the worker. */
let sharedSink: Promise<SmtpSink> | undefined;

/**
 * startAuthServer's server and sink, shared by the files of one vitest worker (sharedServer, test/suite.mjs
 * SHARED): one sink for all of them, read by recipient, so a file finds its mail by the unique addresses it
 * signs up (uniqueEmail), never by the sink's whole list. `stop()` lets go of both.
 */
export async function sharedAuthServer(env: Record<string, string> = {}): Promise<AuthEnv> {
  if (!sharedSink) {
    const opening = startSmtpSink();
    sharedSink = opening;
    opening.catch(() => (sharedSink = undefined));
    // Closed as the worker ends, after the servers that send to it (registered before theirs: see sharedServer).
    onWorkerEnd(async () => (await opening.catch(() => undefined))?.close());
  }
  const sink = await sharedSink;
  const server = await sharedServer({ SMTP_URL: sink.url, ...env });
  return { server, sink, stop: async () => {} };
}

let counter = 0;
/** A unique address for this run (the same files run on SQLite and PostgreSQL). */
export const uniqueEmail = (name = 'user') => `${name}.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`;

/** POST /v1/signups with a solved proof. */
export async function signUp(server: TestServer, app: TestApp, body: { email: string; password?: string | null; redirect_url?: string | null }): Promise<JsonResponse> {
  const hashcash = await getProof(server, app.publishable_key);
  return api(server, 'POST', '/v1/signups', { publishableKey: app.publishable_key, body: { ...body, hashcash } });
}

/** The code of the newest email to `email`. */
export async function codeFor(sink: SmtpSink, email: string, count?: number): Promise<string> {
  return extractCode((await sink.waitFor(email, { count })).text);
}

/** The link of the newest email to `email`, as a path on the server. */
export async function linkFor(sink: SmtpSink, email: string, count?: number): Promise<URL> {
  return new URL(extractLink((await sink.waitFor(email, { count })).text));
}

/** Signs up with a password and verifies by code: a ready, verified user with a session. */
export async function verifiedUser(env: AuthEnv, app: TestApp, email = uniqueEmail(), password = 'correct horse battery') {
  const signup = await signUp(env.server, app, { email, password });
  expect(signup.status).toBe(200);
  const code = await codeFor(env.sink, email);
  const verified = await api(env.server, 'POST', '/v1/verify-code', { publishableKey: app.publishable_key, body: { email, code } });
  expect(verified.status).toBe(200);
  return { email, password, userId: signup.body.user_id as string, tokens: verified.body };
}

export interface SetCookie {
  value: string;
  attributes: Record<string, string | true>;
}

/** Set-Cookie headers by cookie name, with their attributes (lower-case names). */
export function setCookies(headers: Headers): Record<string, SetCookie> {
  const result: Record<string, SetCookie> = {};
  for (const line of headers.getSetCookie()) {
    const [pair, ...attrs] = line.split(';').map((p) => p.trim());
    const eq = pair.indexOf('=');
    const attributes: Record<string, string | true> = {};
    for (const attr of attrs) {
      const i = attr.indexOf('=');
      attributes[(i < 0 ? attr : attr.slice(0, i)).toLowerCase()] = i < 0 ? true : attr.slice(i + 1);
    }
    result[pair.slice(0, eq)] = { value: decodeURIComponent(pair.slice(eq + 1)), attributes };
  }
  return result;
}
