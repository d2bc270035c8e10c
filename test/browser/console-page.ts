import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { codeFor, sharedAuthServer, startAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { axeViolations } from '../helpers/axe.js';
import { addMember, ADMIN_TOKEN, consoleApp, consoleUser, manage, tenantOwnedBy, type ConsoleUser } from '../helpers/console.js';
import type { TestApp } from '../helpers/fixtures.js';
import { RESULTS_DIR } from './harness.js';
import { contextsOf, workerBrowser } from './worker-browser.js';

// The console (docs/console.md) in Chromium, as a person drives it: pages reached by their labels and headings,
// and on every view the checks the issue asks for: axe, the keyboard, 320 px, a screenshot (docs/console-*.png
// with UPDATE_SCREENSHOTS=1). startConsole starts a Gatehouse of its own on an empty database (so `serve`
// prints the setup link: the first run's file); sharedConsole takes the worker's server of that environment
// (sharedAuthServer, test/suite.mjs SHARED), where each file makes its own tenant, apps and console users.
// Either way the worker's Chromium (workerBrowser), in contexts of the file's own.

export interface ConsoleSite {
  env: AuthEnv;
  app: TestApp;
  /** The setup link `serve` printed on stderr. */
  setupUrl: string;
  browser: Browser;
  /** Every request any page made: method, URL, headers and body, for the no-secret check. */
  requests: string[];
  cspViolations: string[];
  context(): Promise<BrowserContext>;
  stop(): Promise<void>;
}

/** `extra`: more of the server's environment (WEBHOOK_ALLOW_PRIVATE for a local webhook receiver). */
export async function startConsole(extra: Record<string, string> = {}): Promise<ConsoleSite> {
  return consoleSite(await startAuthServer({ ADMIN_TOKEN, RATE_LIMITS: 'off', ...extra }));
}

/** As startConsole, on the worker's server of this environment: for a file that needs no empty database. */
export async function sharedConsole(extra: Record<string, string> = {}): Promise<ConsoleSite> {
  return consoleSite(await sharedAuthServer({ ADMIN_TOKEN, RATE_LIMITS: 'off', ...extra }));
}

/** The console app of each server this worker used, its proof-of-work made small once. */
const consoleApps = new Map<string, Promise<TestApp>>();

async function consoleSite(env: AuthEnv): Promise<ConsoleSite> {
  const line = env.server.output().split('\n').find((l) => l.includes('/console/setup?token='));
  if (!line) throw new Error(`serve printed no setup link:\n${env.server.output()}`);
  const setupUrl = /https?:\/\/\S+/.exec(line)![0];
  const key = `${env.server.url} ${env.server.pid}`;
  let made = consoleApps.get(key);
  if (!made) {
    made = (async () => {
      const app = await consoleApp(env.server);
      // A small proof-of-work keeps the sign-ups quick on a loaded machine; the path is the same.
      expect((await env.server.cli(['app', 'update', app.app_id, '--hashcash-difficulty', '4'])).code).toBe(0);
      return app;
    })();
    consoleApps.set(key, made);
    made.catch(() => consoleApps.delete(key));
  }
  const app = await made;
  const browser = await workerBrowser();
  const contexts = contextsOf(browser);
  const requests: string[] = [];
  const cspViolations: string[] = [];
  return {
    env,
    app,
    setupUrl,
    browser,
    requests,
    cspViolations,
    async context() {
      const context = await contexts.open({ viewport: { width: 1024, height: 768 } });
      await context.addInitScript(() =>
        document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`)),
      );
      context.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy|CSP violation/i.test(message.text())) cspViolations.push(message.text());
      });
      if (process.env.CONSOLE_DEBUG) context.on('console', (m) => console.log('PAGE', m.type(), m.text()));
      if (process.env.CONSOLE_DEBUG) context.on('weberror', (e) => console.log('PAGE ERROR', e.error()));
      context.on('request', (request) => requests.push(`${request.method()} ${request.url()} ${JSON.stringify(request.headers())} ${request.postData() ?? ''}`));
      return context;
    },
    async stop() {
      await contexts.close();
      await env.stop();
    },
  };
}

/** No request of the console carried a secret key or the ADMIN_TOKEN (in its address, headers or body). */
export function expectNoSecretsSent(site: ConsoleSite): void {
  expect(site.requests.length).toBeGreaterThan(0);
  // The JWTs a request carries are set aside first: a base64url signature may hold `-sk_` by chance.
  const withoutJwts = (r: string) => r.replace(/eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g, '<jwt>');
  const leaks = site.requests.filter((r) => /(^|[^A-Za-z0-9_-])sk_[A-Za-z0-9]/.test(withoutJwts(r)) || r.includes(ADMIN_TOKEN));
  expect(leaks).toEqual([]);
}

/** Waits for the view whose <h1> is `title`; a refusal shown instead fails at once with its text. */
export async function view(page: Page, title: string): Promise<void> {
  const heading = page.getByRole('heading', { level: 1, name: title, exact: true });
  const alert = page.getByRole('alert');
  await heading.or(alert).first().waitFor({ timeout: 60_000 });
  if (!(await heading.isVisible())) throw new Error(`expected the view "${title}", the page shows: ${await alert.first().textContent()}`);
}

/** Every enabled control of the page, reached by Tab from the top, each showing a focus outline. */
async function expectKeyboardReachesAll(page: Page): Promise<void> {
  const count = await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    const all = [...document.querySelectorAll<HTMLElement>('a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled)')];
    all.forEach((el, i) => el.setAttribute('data-control', String(i)));
    // Chromium stops on each part of a date or time input (day, month, year, hours, minutes, AM/PM).
    const parts = all.filter((el) => /^(date|datetime-local|time|month|week)$/.test((el as HTMLInputElement).type ?? '')).length * 6;
    // Tab goes on from where the last click or focus was, not from the top: the walk starts on the first
    // control (the skip link), so every control after it is met within the count.
    all[0]?.focus();
    return all.length + parts;
  });
  const reached = new Set<string>();
  const unmarked: string[] = [];
  for (let i = 0; i < count + 3; i++) {
    if (i > 0) await page.keyboard.press('Tab');
    const focus = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return undefined;
      const style = getComputedStyle(el);
      return { id: el.getAttribute('data-control'), name: `${el.tagName} ${el.textContent?.trim() || el.getAttribute('aria-label') || el.id}`, outline: style.outlineStyle !== 'none' && style.outlineWidth !== '0px' };
    });
    if (!focus) continue;
    if (focus.id !== null) reached.add(focus.id);
    // The first control was focused by script, which :focus-visible does not mark: its outline is not judged.
    if (!focus.outline && i > 0) unmarked.push(focus.name);
  }
  const missed = await page.evaluate((seen) => [...document.querySelectorAll<HTMLElement>('[data-control]')].filter((el) => !seen.includes(el.getAttribute('data-control')!)).map((el) => el.outerHTML.slice(0, 120)), [...reached]);
  expect(missed, 'controls Tab never reached').toEqual([]);
  expect(unmarked, 'controls focused without a visible outline').toEqual([]);
}

/**
 * The checks of every view: axe finds nothing (any severity), Tab reaches every control with a visible focus,
 * nothing overflows 320 px; then the screenshot `console-NAME.png` (into docs/ too with UPDATE_SCREENSHOTS=1,
 * unless `docs: false`: a view another file already pictures there).
 */
export async function checkView(page: Page, name: string, { docs = true }: { docs?: boolean } = {}): Promise<void> {
  expect(await axeViolations(page), `axe on ${name}`).toEqual([]);
  await expectKeyboardReachesAll(page);
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 320, height: 640 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${name} overflows 320 px by ${overflow} px`).toBeLessThanOrEqual(0);
  await page.setViewportSize(size);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = `console-${name}.png`;
  await page.screenshot({ path: join(RESULTS_DIR, file), fullPage: true });
  if (docs && process.env.UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: join(resolve(import.meta.dirname, '../../docs'), file), fullPage: true });
}

/** Fills the labelled field. */
export async function fill(page: Page, label: string, value: string): Promise<void> {
  await page.getByLabel(label, { exact: true }).fill(value);
}

export async function press(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name, exact: true }).click();
}

/**
 * Signs up through the console's form and verifies the emailed code: the person is signed in. `mailsBefore`:
 * emails the address had before (an invitation), so the code is read from the one after them.
 */
export async function signUpInConsole(site: ConsoleSite, page: Page, email: string, mailsBefore = 0, password = 'correct horse battery'): Promise<void> {
  await fill(page, 'Email', email);
  await fill(page, 'Password', password);
  await press(page, 'Create account');
  await view(page, 'Check your email');
  await fill(page, 'Code from the email', await codeFor(site.env.sink, email, mailsBefore + 1));
  await press(page, 'Verify');
}

export async function signInInConsole(page: Page, email: string, password = 'correct horse battery'): Promise<void> {
  await view(page, 'Sign in to the console');
  await fill(page, 'Email', email);
  await fill(page, 'Password', password);
  await press(page, 'Sign in');
}

/** What the page keeps where a later script could read it: cookies and web storage (must hold no token). */
export async function storedByPage(context: BrowserContext, page: Page): Promise<{ cookies: number; local: string[]; session: string[] }> {
  const stores = await page.evaluate(() => ({ local: Object.keys(localStorage), session: Object.keys(sessionStorage) }));
  return { cookies: (await context.cookies()).length, ...stores };
}

/** What most console files start from: an owner and a viewer of tenant Acme, and its app (made through the API). */
export interface OwnerViewerApp {
  owner: ConsoleUser;
  viewer: ConsoleUser;
  tenantId: string;
  appId: string;
  publishableKey: string;
}

export async function ownerViewerAndApp(site: ConsoleSite, appName = 'Shop'): Promise<OwnerViewerApp> {
  const owner = await consoleUser(site.env, site.app, 'owner');
  const viewer = await consoleUser(site.env, site.app, 'viewer');
  const tenantId = await tenantOwnedBy(site.env, owner, 'Acme');
  await addMember(site.env, tenantId, viewer, 'viewer');
  const app = await manage(site.env.server, ADMIN_TOKEN, 'POST', `/v1/tenants/${tenantId}/apps`, { name: appName });
  expect(app.status, JSON.stringify(app.body)).toBe(201);
  return { owner, viewer, tenantId, appId: app.body.app_id, publishableKey: app.body.publishable_key };
}

/** A new context and page at `url`, signed in there as `email` (the console's sign-in form). */
export async function openSignedIn(site: ConsoleSite, url: string, email: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await site.context();
  const page = await context.newPage();
  await page.goto(url);
  await signInInConsole(page, email);
  return { context, page };
}

/** The end of a file's walk: no CSP violation, no request carried a secret; the context closed. */
export async function closeClean(site: ConsoleSite, context: BrowserContext): Promise<void> {
  expect(site.cspViolations).toEqual([]);
  expectNoSecretsSent(site);
  await context.close();
}
