import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { codeFor, linkFor, signUp, uniqueEmail } from '../helpers/accounts.js';
import { api, createApp } from '../helpers/fixtures.js';
import { clientBundle } from './client-bundle.js';
import { RESULTS_DIR, useSites } from './harness.js';

// What a hostile page can and cannot do in a real Chromium, CORS as a page sees it, the link-landing
// page's button, and /docs.

const { reason, sites } = useSites({ checkCsp: false });

/** A browser signed in on site One (the example app), by the API so the test stays short. */
async function signedInOnOne(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await sites.context();
  const page = await context.newPage();
  await page.goto(sites.oneUrl);
  await page.waitForSelector('body[data-ready="true"]');
  const email = uniqueEmail('csrf');
  // Sign-up (with its proof) from the node side; the code is exchanged in the page, so the cookies land in the jar.
  expect((await signUp(sites.env.server, sites.one, { email })).status).toBe(200);
  const code = await codeFor(sites.env.sink, email);
  const status = await page.evaluate(
    async ({ api, key, email, code }) => {
      const headers = { 'x-publishable-key': key, 'content-type': 'application/json' };
      return (await fetch(`${api}/v1/verify-code`, { method: 'POST', headers, credentials: 'include', body: JSON.stringify({ email, code }) })).status;
    },
    { api: sites.oneApi, key: sites.one.publishable_key, email, code },
  );
  expect(status).toBe(200);
  return { context, page };
}

/** /v1/me from site One's own page: 200 while the session lives. */
const meFromOne = (page: Page) =>
  page.evaluate(
    async ({ api, key }) => (await fetch(`${api}/v1/me`, { headers: { 'x-publishable-key': key }, credentials: 'include' })).status,
    { api: sites.oneApi, key: sites.one.publishable_key },
  );

describe.skipIf(reason)(`browser: cross-site pages, CORS, link landing, /docs${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('5 CSRF: a cross-site page cannot log the user out (form POST, credentialed fetch with the key header, no-cors fetch)', async () => {
    const { context, page } = await signedInOnOne();
    expect(await meFromOne(page)).toBe(200);
    const logout = `${sites.oneApi}/v1/sessions/logout`;
    sites.evilPage(
      '/csrf',
      `<!doctype html><body><form id="f" method="post" enctype="text/plain" action="${logout}"><input name="x" value="y"></form>
      <script>
        (async () => {
          const results = {};
          try {
            const r = await fetch(${JSON.stringify(logout)}, { method: 'POST', credentials: 'include',
              headers: { 'x-publishable-key': ${JSON.stringify(sites.one.publishable_key)}, 'content-type': 'application/json' } });
            results.cors = r.status;
          } catch (e) { results.cors = 'blocked'; }
          await fetch(${JSON.stringify(logout)}, { method: 'POST', mode: 'no-cors', credentials: 'include', body: 'x' });
          window.results = results;
        })();
      </script></body>`,
    );
    const evil = await context.newPage();
    const refused: number[] = [];
    evil.on('response', (response) => {
      if (response.url() === logout && response.request().method() === 'POST') refused.push(response.status());
    });
    await evil.goto(`${sites.evilUrl}/csrf`);
    await evil.waitForFunction(() => (window as unknown as { results?: unknown }).results !== undefined);
    // The credentialed fetch never leaves the preflight (the origin is on no allow-list).
    expect(await evil.evaluate(() => (window as unknown as { results: { cors: unknown } }).results.cors)).toBe('blocked');
    const [navigation] = await Promise.all([evil.waitForNavigation(), evil.evaluate(() => (document.getElementById('f') as HTMLFormElement).submit())]);
    expect(navigation?.status()).toBeGreaterThanOrEqual(400);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const status of refused) expect([401, 403]).toContain(status);
    // The user is still signed in on One.
    expect(await meFromOne(page)).toBe(200);
  });

  it('5 CORS: a page on an allowed origin reads {detail} and X-Request-ID of errors (guard 401, unknown key, 404) and health', async () => {
    const page = await (await sites.context()).newPage();
    await page.goto(sites.oneUrl);
    const seen = await page.evaluate(
      async ({ api, key }) => {
        const read = async (path: string, headers: Record<string, string> = {}) => {
          const r = await fetch(api + path, { headers, credentials: 'include' });
          return { status: r.status, body: await r.json(), requestId: r.headers.get('x-request-id') };
        };
        return [
          await read('/v1/me', { 'x-publishable-key': key }),
          await read('/v1/me', { 'x-publishable-key': 'pk_unknownunknownunknownxx' }),
          await read('/v1/no-such-route'),
          await read('/v1/health'),
        ];
      },
      { api: sites.oneApi, key: sites.one.publishable_key },
    );
    expect(seen.map((r) => r.status)).toEqual([401, 401, 404, 200]);
    for (const r of seen.slice(0, 3)) expect(Object.keys(r.body)).toEqual(['detail', 'code']);
    for (const r of seen) expect(r.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('5 CORS: a page on an origin on no allow-list cannot read any answer, and its preflight is refused', async () => {
    sites.evilPage('/cors', '<!doctype html><body>evil</body>');
    const page = await (await sites.context()).newPage();
    await page.goto(`${sites.evilUrl}/cors`);
    const results = await page.evaluate(async (api) => {
      const attempt = async (init: RequestInit, path = '/v1/health') => {
        try {
          return (await fetch(api + path, init)).status;
        } catch {
          return 'blocked';
        }
      };
      return [await attempt({}), await attempt({ headers: { 'x-publishable-key': 'pk_x' } }, '/v1/me')];
    }, sites.oneApi);
    expect(results).toEqual(['blocked', 'blocked']);
    const preflight = await api(sites.env.server, 'OPTIONS', '/v1/me', { headers: { origin: sites.evilUrl, 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(403);
  });

  it('1 link landing: the emailed link shows one button; its POST (with the Origin Chromium sends) signs in and lands on the app', async () => {
    const three = await createApp(sites.env.server, {
      args: ['--verification-method', 'link', '--link-landing', 'on', '--allowed-origin', `http://127.0.0.1:${sites.webPort}`],
    });
    const email = uniqueEmail('landing');
    expect((await signUp(sites.env.server, three, { email, redirect_url: `${sites.oneUrl}?landed=1` })).status).toBe(200);
    const link = await linkFor(sites.env.sink, email);
    const context = await sites.context();
    const page = await context.newPage();
    const opened = await page.goto(link.href);
    expect(opened?.status()).toBe(200);
    expect((await context.cookies()).map((c) => c.name)).toEqual([]);
    await Promise.all([page.waitForURL(`${sites.oneUrl}?landed=1`), page.click('button[type=submit]')]);
    const session = (await context.cookies()).find((c) => c.name === '__session' && c.domain === '127.0.0.1')!;
    const me = await api(sites.env.server, 'GET', '/v1/me', { publishableKey: three.publishable_key, headers: { cookie: `__session=${session.value}` } });
    expect(me.body).toMatchObject({ email, email_verified: true });
  });

  it('48 a page whose origin is on no allow-list gets an error from @gatehouse/client naming that origin to add', async () => {
    for (const [path, code] of await clientBundle()) sites.evilPage(path, code);
    sites.evilPage(
      '/sdk',
      `<!doctype html><body><script type="module">
        import { createClient } from '/client/index.js';
        const gatehouse = createClient({ url: ${JSON.stringify(sites.oneApi)}, publishableKey: ${JSON.stringify(sites.one.publishable_key)} });
        gatehouse.auth.signInWithPassword({ email: 'ada@example.com', password: 'a password' })
          .then(() => { window.results = { status: 'signed in' }; }, (e) => { window.results = { status: e.status, code: e.code, detail: e.detail }; });
      </script></body>`,
    );
    const page = await (await sites.context()).newPage();
    await page.goto(`${sites.evilUrl}/sdk`);
    await page.waitForFunction(() => (window as unknown as { results?: unknown }).results !== undefined);
    const results = await page.evaluate(() => (window as unknown as { results: { status: unknown; code: unknown; detail: string } }).results);
    expect(results).toMatchObject({ status: 0, code: 'network_error' });
    // Both likely causes, and the exact command with the page's own origin.
    expect(results.detail).toContain(`could not reach Gatehouse at ${sites.oneApi}`);
    expect(results.detail).toContain(`--add-allowed-origin ${sites.evilUrl}`);
  });

  it('/docs renders the API reference from the OpenAPI document, and /docs/explorer the Swagger UI (screenshot in test-results/docs.png)', async () => {
    const page = await (await sites.context()).newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const explorer = await (await sites.context()).newPage();
    await explorer.goto(`${sites.oneApi}/docs/explorer`);
    await explorer.waitForSelector('.swagger-ui .info .title', { timeout: 30_000 });
    expect(await explorer.textContent('.swagger-ui .info .title')).toMatch(/Gatehouse/);
    await explorer.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    expect(await explorer.locator('.opblock-summary-path').count()).toBeGreaterThan(10);

    await page.goto(`${sites.oneApi}/docs`);
    expect(await page.textContent('h1')).toBe('Gatehouse API reference');
    const document = await (await fetch(`${sites.oneApi}/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(await page.locator('main article').count()).toBe(operations);
    const users = page.locator('article[aria-labelledby="op-listusers"]');
    expect(await users.locator('h3').textContent()).toBe('GET /v1/users');
    await users.locator('summary').click();
    expect(await users.locator('tbody th').allTextContents()).toEqual(expect.arrayContaining(['limit', 'email', 'cursor']));
    expect(await users.locator('li:has-text("200")').textContent()).toContain('next_cursor');
    const file = join(RESULTS_DIR, 'docs.png');
    await page.screenshot({ path: file, fullPage: false });
    expect(statSync(file).size).toBeGreaterThan(10_000);
  });
});
