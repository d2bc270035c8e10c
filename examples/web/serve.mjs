#!/usr/bin/env node
// The example web app's static server: `node examples/web/serve.mjs` from the repository root, while
// `npm start` runs the API there. First run: creates a tenant and two apps through the gatehouse CLI and
// keeps their keys in ./data/example-web.json. Then serves the same pages as two sites:
//   http://127.0.0.1:3000  app "One", API http://127.0.0.1:8080
//   http://localhost:3000  app "Two", API http://localhost:8080
// Each page talks to the API on its OWN host name, so page and API are same-site and the API's
// SameSite=Lax cookies reach it; the two sites are cross-site to each other, as two real domains are,
// and SSO carries the sign-in from One to Two.
// The pages load @gatehouse/client from /client/: packages/client/dist (run `npm run build` first) bundled
// here at start by Rolldown with its proof-of-work worker (hash-wasm inside), so nothing comes from a network.
// Options: --port 3000 --api-port 8080 --config FILE (a ready config; the browser tests pass one).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const port = Number(option('port', '3000'));
const apiPort = Number(option('api-port', '8080'));

function gatehouse(...args) {
  return JSON.parse(execFileSync(process.execPath, [join(ROOT, 'bin/gatehouse.js'), ...args, '--json'], { encoding: 'utf8' }));
}

/** The app's `notes` table and `avatars` bucket, which only its secret key may create (the pages use them by session). */
async function createStorage(app) {
  const api = `http://127.0.0.1:${apiPort}`;
  const post = (path, body) =>
    fetch(api + path, { method: 'POST', headers: { authorization: `Bearer ${app.secret_key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const columns = [{ name: 'title', type: 'text', required: true }, { name: 'done', type: 'bool', default_value: false }];
  for (const answer of [await post('/v1/tables', { name: 'notes', columns }), await post('/v1/buckets', { name: 'avatars' })]) {
    if (!answer.ok) throw new Error(`could not set up ${app.name}: ${answer.status} ${await answer.text()}`);
  }
}

/** The sites (host name → app) from --config, or from ./data/example-web.json, made on the first run. */
async function loadSites() {
  const given = option('config');
  if (given) return JSON.parse(readFileSync(given, 'utf8')).sites;
  const file = resolve('data/example-web.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')).sites;
  await fetch(`http://127.0.0.1:${apiPort}/v1/health`).catch(() => {
    console.error(`the API does not answer on port ${apiPort}: start it first (npm start)`);
    process.exit(1);
  });
  const tenant = gatehouse('tenant', 'create', '--name', 'Example');
  const app = (name, origin, ...more) =>
    gatehouse('app', 'create', '--tenant', tenant.tenant_id, '--name', name, '--allowed-origin', origin, ...more);
  const one = app('One', `http://127.0.0.1:${port}`, '--verification-method', 'both');
  const two = app('Two', `http://localhost:${port}`);
  await createStorage(one);
  await createStorage(two);
  const sites = {
    '127.0.0.1': { name: one.name, publishable_key: one.publishable_key },
    localhost: { name: two.name, publishable_key: two.publishable_key },
  };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ sites }, null, 2) + '\n');
  console.log(`created tenant ${tenant.tenant_id} with apps One (${one.app_id}) and Two (${two.app_id}); keys in ${file}`);
  return sites;
}

const sites = await loadSites();

/** @gatehouse/client for the browser: its entry and its worker, bundled from packages/client/dist (no network). */
async function bundleClient() {
  const dist = join(ROOT, 'packages/client/dist/');
  if (!existsSync(dist + 'index.js')) throw new Error('packages/client/dist is missing: run `npm run build` first');
  const result = await build({
    input: { index: dist + 'index.js', 'pow-worker': dist + 'pow-worker.js' },
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    output: { format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name].js' },
  });
  return new Map(result.output.filter((chunk) => chunk.type === 'chunk').map((chunk) => [`/client/${chunk.fileName}`, chunk.code]));
}
const client = await bundleClient();

/** config.js for the site the browser asked for: which app, and where its API is (same host name). */
function configFor(host) {
  const site = sites[host];
  if (!site) return undefined;
  const others = Object.entries(sites)
    .filter(([name]) => name !== host)
    .map(([name, other]) => ({ name: other.name, url: `http://${name}:${port}/`, api: `http://${name}:${apiPort}`, publishableKey: other.publishable_key }));
  const config = { name: site.name, publishableKey: site.publishable_key, api: `http://${host}:${apiPort}`, others };
  return `export default ${JSON.stringify(config, null, 2)};\n`;
}

/**
 * A strict policy: scripts, styles and the proof-of-work worker only from this site (no inline code, no
 * eval; WebAssembly for the worker's argon2id), requests only to this site and its API, pictures from
 * here or from Blobs and data: URLs the page made (the avatar, the TOTP QR code), and nobody may frame it.
 */
function contentSecurityPolicy(host) {
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self'",
    "img-src 'self' blob: data:",
    `connect-src 'self' http://${host}:${apiPort}`,
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function fileFor(pathname) {
  if (pathname === '/') return join(HERE, 'index.html');
  const path = normalize(join(HERE, pathname));
  return path.startsWith(HERE) && extname(path) in TYPES ? path : undefined;
}

createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://x');
  const host = (request.headers.host ?? '').replace(/:\d+$/, '');
  const send = (status, type, body) => {
    response.writeHead(status, {
      'content-type': type,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'content-security-policy': contentSecurityPolicy(host),
    });
    response.end(body);
  };
  if (url.pathname === '/config.js') {
    const config = configFor(host);
    return config ? send(200, TYPES['.js'], config) : send(404, 'text/plain', `no app for host ${host}: open http://127.0.0.1:${port}/`);
  }
  if (client.has(url.pathname)) return send(200, TYPES['.js'], client.get(url.pathname));
  const file = fileFor(url.pathname);
  if (!file || !existsSync(file)) return send(404, 'text/plain', 'not found');
  send(200, TYPES[extname(file)], readFileSync(file));
}).listen(port, '127.0.0.1', () => {
  for (const [host, site] of Object.entries(sites)) console.log(`app ${site.name}: http://${host}:${port}/ (API http://${host}:${apiPort})`);
});
