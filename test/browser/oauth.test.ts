import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type TestApp } from '../helpers/fixtures.js';
import { OAuthBrowser, type PendingRequest } from '../helpers/oauth-browser.js';
import { authorize, configureApple, configureGoogle, newAccount, startOAuthEnv, type OAuthEnv } from '../helpers/oauth.js';
import { clientBundle } from './client-bundle.js';
import { findChromium, skipReason } from './harness.js';

// OAuth in a real Chromium (issue 35, finding 2; docs/oauth.md): the sign-in an app's page
// starts completes in that browser, Google's by a GET redirect and Apple's by the form its page posts;
// the callback an attacker stops before, opened in a browser profile that did not start the flow (a
// link for Google, an auto-submitting form on another site for Apple), signs nobody in.
//
// One small server on loopback serves the app's page at http://127.0.0.1:<port> (the same site as
// Gatehouse on 127.0.0.1, as app.example.com and auth.example.com would be) and the attacker's at
// http://evil.test:<port> (another site; --host-resolver-rules maps the name to 127.0.0.1). The providers
// and Gatehouse are real servers on loopback too.

const reason = skipReason();
const APP_PAGE = '<!doctype html><title>app</title><body>app</body>';

let o: OAuthEnv;
let app: TestApp;
let browser: Browser;
let pages: Server;
let SITE: string;
let EVIL: string;
let RETURN: string;
const evilPages = new Map<string, string>();

beforeAll(async () => {
  if (reason) return;
  // The app's site also serves @gatehouse/client, for the sign-in the client drives.
  const client = await clientBundle();
  pages = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const evil = (request.headers.host ?? '').startsWith('evil.test');
    if (!evil && client.has(path)) return void response.writeHead(200, { 'content-type': 'text/javascript' }).end(client.get(path));
    const html = evil ? evilPages.get(path) : APP_PAGE;
    response.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(html ?? 'not found');
  });
  await new Promise<void>((done) => pages.listen(0, '127.0.0.1', done));
  const port = (pages.address() as AddressInfo).port;
  SITE = `http://127.0.0.1:${port}`;
  EVIL = `http://evil.test:${port}`;
  RETURN = `${SITE}/signed-in`;
  o = await startOAuthEnv(1);
  app = await createApp(o.server, { name: 'OAuth in Chromium', args: ['--allowed-origin', SITE] });
  await configureGoogle(o.server, app, o.apps[0].google);
  await configureApple(o.server, app, o.apps[0].apple);
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--host-resolver-rules=MAP evil.test 127.0.0.1', '--disable-dev-shm-usage'] });
});
afterAll(async () => {
  await browser?.close().catch(() => {});
  await o?.stop();
  await new Promise<void>((done) => (pages ? pages.close(() => done()) : done()));
});

/** A fresh browser profile (its own cookie jar) on the app's page. */
async function profile(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(45_000);
  await page.goto(`${SITE}/`);
  return { context, page };
}

/** What the app's page does: authorize with credentials (the binding cookie lands in this browser), then go. */
async function startSignIn(page: Page, provider: 'google' | 'apple'): Promise<void> {
  const url = await page.evaluate(
    async ({ api, key, provider, back }) => {
      const res = await fetch(`${api}/v1/oauth/${provider}/authorize?redirect_url=${encodeURIComponent(back)}`, { headers: { 'x-publishable-key': key }, credentials: 'include' });
      return ((await res.json()) as { authorization_url: string }).authorization_url;
    },
    { api: o.server.url, key: app.publishable_key, provider, back: RETURN },
  );
  await page.goto(url);
}

/** The provider's login and consent pages, as a person fills them; ends where the provider sends the browser back. */
async function logInAtProvider(page: Page, login: string): Promise<URL> {
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', 'any password');
  await page.click('button[type=submit]');
  await page.waitForSelector('input[name=prompt][value=consent]', { state: 'attached' });
  await page.click('button[type=submit]');
  await page.waitForURL((url) => url.href.startsWith(RETURN));
  return new URL(page.url());
}

/** /v1/me from the app's page, with the browser's cookies. */
const meFromPage = (page: Page) =>
  page.evaluate(
    async ({ api, key }) => {
      const res = await fetch(`${api}/v1/me`, { headers: { 'x-publishable-key': key }, credentials: 'include' });
      return { status: res.status, body: (await res.json()) as { email?: string } };
    },
    { api: o.server.url, key: app.publishable_key },
  );

/** An attacker's own sign-in, stopped right before the callback (outside the victim's browser). */
async function attackersCallback(provider: 'google' | 'apple'): Promise<PendingRequest> {
  const attacker = new OAuthBrowser();
  const start = await authorize(o.server, app, provider, RETURN, attacker);
  expect(start.status).toBe(200);
  return attacker.walkProvider(start.body.authorization_url, newAccount(o[provider]).sub, `${o.server.url}/v1/oauth/${provider}/callback`);
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

describe.skipIf(reason)(`browser: OAuth bound to the browser that started it${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('13 Google in Chromium: the page starts the sign-in, the provider redirects back, the user is signed in', async () => {
    const { page } = await profile();
    const account = newAccount(o.google);
    await startSignIn(page, 'google');
    const back = await logInAtProvider(page, account.sub);
    expect(back.searchParams.get('error')).toBeNull();
    expect(await meFromPage(page)).toMatchObject({ status: 200, body: { email: account.email } });
  });

  it('39 Google through @gatehouse/client: signInWithOAuth sends the browser to the provider; back on the page, the client has the session', async () => {
    const { page } = await profile();
    const account = newAccount(o.google);
    // Written as text: vitest rewrites a dynamic import() inside a function handed to evaluate.
    const client = `(await import(${JSON.stringify(`${SITE}/client/index.js`)})).createClient({ url: ${JSON.stringify(o.server.url)}, publishableKey: ${JSON.stringify(app.publishable_key)} })`;
    const leaving = page.waitForURL((url) => !url.href.startsWith(`${SITE}/`));
    await page
      .evaluate(`(async () => { await ${client}.auth.signInWithOAuth({ provider: 'google', redirectTo: ${JSON.stringify(RETURN)} }); })()`)
      .catch(() => undefined); // the page navigates away while the call ends
    await leaving;
    const back = await logInAtProvider(page, account.sub);
    expect(back.searchParams.get('gatehouse_landing')).toBe('oauth');
    const landed = await page.evaluate(`(async () => {
      const gatehouse = ${client};
      const landing = await gatehouse.auth.handleRedirect();
      return { landing, email: (await gatehouse.auth.getUser())?.email, url: location.href };
    })()`);
    expect(landed).toEqual({ landing: { type: 'oauth' }, email: account.email, url: RETURN });
  });

  it("13 Apple in Chromium: the provider's page posts the form (form_post); the SameSite=None; Secure cookie rides along on http://127.0.0.1", async () => {
    const { context, page } = await profile();
    const account = newAccount(o.apple);
    await startSignIn(page, 'apple');
    const binding = (await context.cookies()).find((c) => c.name === '__oauth_apple');
    expect(binding).toMatchObject({ httpOnly: true, secure: true, sameSite: 'None', path: '/v1/oauth' });
    const back = await logInAtProvider(page, account.sub);
    expect(back.searchParams.get('error')).toBeNull();
    expect(await meFromPage(page)).toMatchObject({ status: 200, body: { email: account.email } });
  });

  it("35.2 Google: the attacker's callback link opened in a browser that did not start the flow → ?error=invalid_state, nobody signed in", async () => {
    const pending = await attackersCallback('google');
    const { page } = await profile();
    await page.goto(pending.url.href);
    await page.waitForURL((url) => url.href.startsWith(RETURN));
    expect(new URL(page.url()).searchParams.get('error')).toBe('invalid_state');
    expect((await meFromPage(page)).status).toBe(401);
  });

  it("35.2 Apple: the attacker's form_post, auto-submitted by another site in a browser that did not start the flow → ?error=invalid_state, nobody signed in", async () => {
    const pending = await attackersCallback('apple');
    const inputs = Object.entries(pending.form ?? {})
      .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
      .join('');
    evilPages.set('/apple', `<!doctype html><body><form method="post" action="${escapeHtml(pending.url.href)}">${inputs}</form><script>document.forms[0].submit()</script>`);
    const { page } = await profile();
    // The victim is even in the middle of an Apple sign-in of their own: their cookie does not fit the attacker's state.
    await startSignIn(page, 'apple');
    await page.goto(`${EVIL}/apple`);
    await page.waitForURL((url) => url.href.startsWith(RETURN));
    expect(new URL(page.url()).searchParams.get('error')).toBe('invalid_state');
    expect((await meFromPage(page)).status).toBe(401);
  });
});
