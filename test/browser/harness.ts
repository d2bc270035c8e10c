import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { sharedAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { freePort } from '../helpers/server.js';
import { contextsOf, workerBrowser } from './worker-browser.js';

// The real-browser suite's harness: Debian's chromium driven by playwright-core, the example web app
// (examples/web) served as two sites against a spawned Gatehouse, and a third, hostile site.
//   http://127.0.0.1:<web>  app One, its API at http://127.0.0.1:<api>   (one site)
//   http://localhost:<web>  app Two, its API at http://localhost:<api>   (another site)
//   http://evil.test:<evil> a cross-site attacker's page
// --host-resolver-rules maps the names to 127.0.0.1, so nothing depends on the machine's DNS or IPv6.

const ROOT = resolve(import.meta.dirname, '../..');
export const RESULTS_DIR = join(ROOT, 'test-results');
const CI = process.env.CI === 'true' || process.env.CI === '1';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser binary, or undefined. */
export function findChromium(): string | undefined {
  return CANDIDATES.find((path): path is string => Boolean(path && existsSync(path)));
}

/**
 * Why the suite does not run here, or undefined when it does. It runs only in the SQLite pass of
 * `npm test` (the pages exercise the HTTP surface, which the PostgreSQL pass would only repeat: that
 * saves CI time), unless `bothDatabases` (a file test/suite.mjs BOTH_DATABASES names). No browser: skipped with a warning locally; under CI=true a failure (.ci/run installs it).
 */
export function skipReason({ bothDatabases = false }: { bothDatabases?: boolean } = {}): string | undefined {
  if (TEST_DB !== 'sqlite' && !bothDatabases) return 'the browser suite runs only when TEST_DB=sqlite (it checks pages and HTTP, not the database; saves CI time)';
  if (findChromium()) return undefined;
  if (CI) throw new Error('no chromium found: CI requires it (apt-get install -y chromium; .ci/run does)');
  console.warn('WARNING: no chromium found (apt-get install -y chromium, or set CHROMIUM_PATH): the browser suite is skipped');
  return 'no chromium on this machine';
}

/** Chromium's flags for the sites: localhost and evil.test resolve to 127.0.0.1. */
export const SITE_FLAGS = ['--host-resolver-rules=MAP localhost 127.0.0.1, MAP evil.test 127.0.0.1'];

export interface Sites {
  env: AuthEnv;
  one: TestApp;
  two: TestApp;
  apiPort: number;
  webPort: number;
  evilPort: number;
  /** Site One's page, its API; site Two's page, its API; the attacker's page. */
  oneUrl: string;
  oneApi: string;
  twoUrl: string;
  twoApi: string;
  evilUrl: string;
  browser: Browser;
  /** A fresh browser profile (its own cookie jar). */
  context(): Promise<BrowserContext>;
  /**
   * What the example's pages reported against its Content-Security-Policy so far (securitypolicyviolation
   * events and Chromium's console errors naming the policy), in every context of this harness.
   */
  cspViolations: string[];
  /** Serves `html` at the attacker's site under `path`. */
  evilPage(path: string, html: string): void;
  stop(): Promise<void>;
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolveWait, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`example server did not start:\n${seen}`)), 30_000);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolveWait();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`example server exited with ${code}:\n${seen}`)));
  });
}

/** Starts Gatehouse (mail to an SMTP sink; `serverEnv` added to its environment), the two apps of one tenant, the example server, the attacker's server and chromium. */
export async function startSites(serverEnv: Record<string, string> = {}): Promise<Sites> {
  const env = await sharedAuthServer(serverEnv);
  const apiPort = env.server.port;
  const webPort = await freePort();
  const tenantId = await createTenant(env.server, 'Example');
  const one = await createApp(env.server, {
    tenantId,
    name: 'One',
    args: ['--allowed-origin', `http://127.0.0.1:${webPort}`, '--verification-method', 'both', '--hashcash-difficulty', '4'],
  });
  const two = await createApp(env.server, { tenantId, name: 'Two', args: ['--allowed-origin', `http://localhost:${webPort}`] });
  // What serve.mjs makes on its first run: each app's `notes` table and `avatars` bucket (secret key only).
  for (const app of [one, two]) {
    const columns = [{ name: 'title', type: 'text', required: true }, { name: 'done', type: 'bool', default_value: false }];
    const table = await api(env.server, 'POST', '/v1/tables', { bearer: app.secret_key, body: { name: 'notes', columns } });
    const bucket = await api(env.server, 'POST', '/v1/buckets', { bearer: app.secret_key, body: { name: 'avatars' } });
    if (table.status !== 201 || bucket.status !== 201) throw new Error(`example set-up failed: ${table.status} ${bucket.status}`);
  }

  mkdirSync(RESULTS_DIR, { recursive: true });
  const configFile = join(env.server.dir, 'example-web.json');
  const sites = { '127.0.0.1': { name: 'One', publishable_key: one.publishable_key }, localhost: { name: 'Two', publishable_key: two.publishable_key } };
  writeFileSync(configFile, JSON.stringify({ sites }));
  const web = spawn(process.execPath, [join(ROOT, 'examples/web/serve.mjs'), '--port', String(webPort), '--api-port', String(apiPort), '--config', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForLine(web, /app Two:/);

  const evilPages = new Map<string, string>();
  const evil: Server = createServer((request, response) => {
    const html = evilPages.get((request.url ?? '/').split('?')[0]);
    const type = (request.url ?? '').split('?')[0]!.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8';
    response.writeHead(html ? 200 : 404, { 'content-type': type });
    response.end(html ?? 'not found');
  });
  await new Promise<void>((done) => evil.listen(0, '127.0.0.1', done));
  const evilPort = (evil.address() as AddressInfo).port;

  // The worker's Chromium for these flags (worker-browser.ts): each file's pages in contexts of its own.
  const browser = await workerBrowser(SITE_FLAGS);
  const contexts = contextsOf(browser);
  const cspViolations: string[] = [];
  const onExampleSite = (url: string | undefined) => url === undefined || new URL(url).port === String(webPort);
  return {
    env,
    one,
    two,
    apiPort,
    webPort,
    evilPort,
    oneUrl: `http://127.0.0.1:${webPort}/`,
    oneApi: `http://127.0.0.1:${apiPort}`,
    twoUrl: `http://localhost:${webPort}/`,
    twoApi: `http://localhost:${apiPort}`,
    evilUrl: `http://evil.test:${evilPort}`,
    browser,
    cspViolations,
    async context() {
      const context = await contexts.open();
      // Chromium logs a refused script, style, image, request or WebAssembly compile as a console error
      // naming the policy; the event adds what was blocked. Both count, on the example's sites only.
      await context.addInitScript(() =>
        document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`)),
      );
      context.on('console', (message) => {
        const text = message.text();
        if (message.type() === 'error' && /Content Security Policy|CSP violation/i.test(text) && onExampleSite(message.page()?.url())) {
          cspViolations.push(`${message.page()?.url() ?? 'a worker'}: ${text}`);
        }
      });
      return context;
    },
    evilPage(path, html) {
      evilPages.set(path, html);
    },
    async stop() {
      await contexts.close();
      web.kill('SIGTERM');
      await new Promise<void>((done) => evil.close(() => done()));
      await env.stop();
    },
  };
}

/**
 * The set-up of a Chromium file: the sites started before its tests (unless `reason`, from skipReason(), says
 * they cannot run) and stopped after them; with `checkCsp` (the default), a test after which the example's
 * pages reported a Content-Security-Policy violation fails. `sites` is filled in once they are started.
 */
export function useSites(options: { checkCsp?: boolean } = {}): { reason: string | undefined; sites: Sites } {
  const reason = skipReason();
  const sites = {} as Sites;
  let started = false;
  beforeAll(async () => {
    if (reason) return;
    Object.assign(sites, await startSites());
    started = true;
  });
  afterAll(async () => {
    if (started) await sites.stop();
  });
  // The example app's strict Content-Security-Policy (examples/web/serve.mjs) must not break anything it does.
  if (options.checkCsp ?? true) {
    afterEach(() => {
      if (started) expect(sites.cspViolations).toEqual([]);
    });
  }
  return { reason, sites };
}
