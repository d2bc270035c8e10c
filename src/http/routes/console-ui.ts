import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { consoleInfo } from '../../services/management/console-app.js';
import type { Http } from '../types.js';

// docs/console.md: the console's static files, built by `npm run build` (console/build.mjs) into
// dist/console/: index.html for /console/ and every client-side route under it, the content-hashed assets
// its manifest lists, and config.json (which app the page signs in through). One strict policy on all of
// them: scripts, styles and the proof-of-work worker from this origin only (no inline code, no eval;
// 'wasm-unsafe-eval' lets the worker compile argon2id's WebAssembly, nothing else), requests to this
// origin only, and nobody may frame it.

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', html: 'text/html; charset=utf-8' };
const DIST = resolve(import.meta.dirname, '../../../console');

interface Built {
  index: string;
  assets: Map<string, Buffer>;
}

/** The built console, read once; undefined when this install was built without it. */
function loadBuilt(): Built | undefined {
  const manifest = join(DIST, 'manifest.json');
  if (!existsSync(manifest)) return undefined;
  const { assets } = JSON.parse(readFileSync(manifest, 'utf8')) as { assets: string[] };
  return { index: readFileSync(join(DIST, 'index.html'), 'utf8'), assets: new Map(assets.map((name) => [name, readFileSync(join(DIST, 'assets', name))])) };
}

function secure(reply: FastifyReply, cache: string): FastifyReply {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('cache-control', cache);
}

export function consoleUiRoutes(app: Http, deps: Deps): void {
  let built: Built | undefined | null = null;
  const files = () => (built === null ? (built = loadBuilt()) : built);
  const notBuilt = () => notFound('the console is not built on this install: run npm run build');
  let info: Promise<{ app_id: string; publishable_key: string }> | undefined;

  const index = async (_request: unknown, reply: FastifyReply) => {
    const console_ = files();
    if (!console_) throw notBuilt();
    return secure(reply, 'no-store').type(TYPES.html!).send(console_.index);
  };

  app.get('/console', { schema: { hide: true }, config: { page: true } }, async (_request, reply) => reply.redirect('/console/', 308));
  app.get('/console/', { schema: { hide: true }, config: { page: true } }, index);
  app.get('/console/config.json', { schema: { hide: true } }, async (_request, reply) => {
    info ??= consoleInfo(deps, deps.config.publicBaseUrl).catch((error: unknown) => {
      info = undefined;
      throw error;
    });
    const { app_id, publishable_key } = await info;
    return secure(reply, 'no-store').send({ app_id, publishable_key });
  });
  app.get<{ Params: { name: string } }>('/console/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const console_ = files();
    if (!console_) throw notBuilt();
    const body = console_.assets.get(request.params.name);
    if (!body) throw notFound('no such console asset');
    const type = TYPES[request.params.name.split('.').pop()!] ?? 'application/octet-stream';
    return secure(reply, 'public, max-age=31536000, immutable').type(type).send(body);
  });
  // A client-side route (/console/apps/...): the page, which reads the address. A path naming a file
  // (a dot in its last part) is an asset that does not exist.
  app.get<{ Params: { '*': string } }>('/console/*', { schema: { hide: true }, config: { page: true } }, async (request, reply) => {
    const last = request.params['*'].split('/').pop() ?? '';
    if (last.includes('.')) throw notFound('no such console file');
    return index(request, reply);
  });
}
