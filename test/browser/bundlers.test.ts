import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedAuthServer, uniqueEmail, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { findChromium, RESULTS_DIR, skipReason } from './harness.js';

// A sign-up page as an integrator writes it (`import { createClient } from '@gatehouse/client'`, nothing
// else), built by each bundler with no configuration of its own, then signing up in Chromium: the
// proof-of-work must find its worker (and the worker its hash-wasm) in every build. @gatehouse/client is
// installed into the page's node_modules as npm installs it (a copy of the package, not the workspace
// link, so Vite pre-bundles it as it does a dependency from the registry).

const ROOT = resolve(import.meta.dirname, '../..');
const WORK = join(RESULTS_DIR, 'bundlers');
const reason = skipReason();

const PAGE = `import { createClient } from '@gatehouse/client';
const warnings = [];
const warn = console.warn.bind(console);
console.warn = (...args) => { warnings.push(args.join(' ')); warn(...args); };
const query = new URLSearchParams(location.search);
const client = createClient({ url: query.get('api'), publishableKey: query.get('key'), storage: 'memory' });
window.signUp = async (email, password) => {
  try {
    await client.auth.signUp({ email, password });
    return { ok: true, warnings };
  } catch (error) {
    return { ok: false, error: String(error && error.message), warnings };
  }
};
document.body.dataset.ready = 'true';
`;
const html = (script: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign up</title></head><body><script type="module" src="${script}"></script></body></html>`;

let env: AuthEnv;
let app: TestApp;
let browser: Browser;
const servers: Server[] = [];

/** A project directory with the page and @gatehouse/client installed as a package (its deps resolve from the repository's node_modules above). */
function project(name: string): string {
  const dir = join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  const installed = join(dir, 'node_modules/@gatehouse/client');
  mkdirSync(installed, { recursive: true });
  cpSync(join(ROOT, 'packages/client/dist'), join(installed, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'packages/client/package.json'), join(installed, 'package.json'));
  writeFileSync(join(dir, 'main.js'), PAGE);
  writeFileSync(join(dir, 'index.html'), html('./main.js'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `page-${name}`, private: true, type: 'module' }));
  return dir;
}

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm' };

/** Serves a build's output directory on 127.0.0.1 (the app's allowed origin is set to it). */
async function serve(dir: string, csp?: string): Promise<string> {
  const server = createServer((request, response) => {
    const path = new URL(request.url!, 'http://x').pathname;
    const file = path === '/' ? 'index.html' : path;
    try {
      const body = readFileSync(join(dir, file));
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', ...(csp ? { 'content-security-policy': csp } : {}) }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Opens the page, signs up, and answers what the page saw and whether the account exists. */
type Outcome = { ok: boolean; error?: string; warnings: string[]; exists: boolean; worker: 'bundled' | 'blob' | 'none' };

async function signUpAt(origin: string): Promise<Outcome> {
  await env.server.cli(['app', 'update', app.app_id, '--add-allowed-origin', origin]);
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const workers: string[] = [];
    page.on('worker', (worker) => workers.push(worker.url()));
    await page.goto(`${origin}/?api=${encodeURIComponent(env.server.url)}&key=${app.publishable_key}`);
    await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 });
    const email = uniqueEmail('bundler');
    const result = await page.evaluate(([e, p]) => (window as unknown as { signUp(e: string, p: string): Promise<Omit<Outcome, 'exists' | 'worker'>> }).signUp(e!, p!), [email, 'correct horse battery']);
    const users = await api(env.server, 'GET', `/v1/users?email=${encodeURIComponent(email)}`, { headers: { authorization: `Bearer ${app.secret_key}` } });
    // The worker that ran: the last one started (a bundled URL that was not found comes before its Blob).
    const last = workers.at(-1);
    const worker = last === undefined ? 'none' : last.startsWith('blob:') ? 'blob' : 'bundled';
    return { ...result, exists: users.body.users.length === 1, worker };
  } finally {
    await context.close();
  }
}

beforeAll(async () => {
  if (reason) return;
  env = await sharedAuthServer();
  app = await createApp(env.server, { args: ['--hashcash', 'on', '--hashcash-difficulty', '3'] });
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  for (const server of servers) server.close();
  await env?.stop();
  rmSync(WORK, { recursive: true, force: true });
});

// A bundler's build takes seconds to tens of seconds on a loaded machine.
describe.skipIf(reason)(`browser: @gatehouse/client under every bundler, no configuration${reason ? ` (skipped: ${reason})` : ''}`, { timeout: 180_000 }, () => {
  it('48 bundlers: Vite (build) bundles the proof-of-work worker; the page signs up in Chromium', async () => {
    const dir = project('vite-build');
    const { build } = await import('vite');
    await build({ root: dir, logLevel: 'silent', configFile: false, build: { outDir: join(dir, 'dist') } });
    expect(await signUpAt(await serve(join(dir, 'dist')))).toEqual({ ok: true, warnings: [], exists: true, worker: 'bundled' });
  });

  it('48 bundlers: Vite (dev server, the package pre-bundled) runs the worker; the page signs up', async () => {
    const dir = project('vite-dev');
    const { createServer: createVite } = await import('vite');
    const vite = await createVite({ root: dir, logLevel: 'silent', configFile: false, server: { host: '127.0.0.1', port: 0 } });
    await vite.listen();
    try {
      const origin = `http://127.0.0.1:${(vite.httpServer!.address() as AddressInfo).port}`;
      expect(await signUpAt(origin)).toEqual({ ok: true, warnings: [], exists: true, worker: 'bundled' });
    } finally {
      await vite.close();
    }
  });

  it('48 bundlers: webpack 5 bundles the worker (new Worker(new URL(...))); the page signs up', async () => {
    const dir = project('webpack');
    const { default: webpack } = await import('webpack');
    const stats = await new Promise<import('webpack').Stats>((done, fail) =>
      webpack({ mode: 'production', context: dir, entry: './main.js', output: { path: join(dir, 'dist'), publicPath: 'auto' } }, (error, result) => (error ? fail(error) : done(result!))),
    );
    expect(stats.hasErrors(), stats.toString('errors-only')).toBe(false);
    writeFileSync(join(dir, 'dist/index.html'), html('./main.js'));
    expect(await signUpAt(await serve(join(dir, 'dist')))).toEqual({ ok: true, warnings: [], exists: true, worker: 'bundled' });
  });

  it('48 bundlers: Rolldown (which bundles no workers) runs the worker from its self-contained script (a Blob URL); the page signs up', async () => {
    const dir = project('rolldown');
    const { build } = await import('rolldown');
    await build({ cwd: dir, input: join(dir, 'main.js'), platform: 'browser', logLevel: 'silent', output: { dir: join(dir, 'dist'), format: 'esm' } });
    writeFileSync(join(dir, 'dist/index.html'), html('./main.js'));
    expect(await signUpAt(await serve(join(dir, 'dist')))).toEqual({ ok: true, warnings: [], exists: true, worker: 'blob' });
  });

  it('48 bundlers: esbuild (which bundles no workers) runs the worker from a Blob URL; under a CSP that refuses blob: workers it signs up on the page thread, with a warning naming powWorkerUrl', async () => {
    const dir = project('esbuild');
    const { build } = await import('esbuild');
    await build({ absWorkingDir: dir, entryPoints: ['main.js'], bundle: true, format: 'esm', outdir: join(dir, 'dist'), logLevel: 'silent' });
    writeFileSync(join(dir, 'dist/index.html'), html('./main.js'));
    expect(await signUpAt(await serve(join(dir, 'dist')))).toEqual({ ok: true, warnings: [], exists: true, worker: 'blob' });

    const strict = await signUpAt(await serve(join(dir, 'dist'), `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src ${env.server.url}`));
    expect(strict).toMatchObject({ ok: true, exists: true });
    expect(strict.worker, 'no Blob worker under this CSP').not.toBe('blob');
    expect(strict.warnings).toEqual([expect.stringContaining('powWorkerUrl')]);
  });
});
