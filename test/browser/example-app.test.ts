import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, linkFor, uniqueEmail } from '../helpers/accounts.js';
import { skipReason, startSites, type Sites } from './harness.js';

// The example web app (examples/web) in a real Chromium: every flow a person clicks through, the
// cookies as the browser's own jar holds them, and SSO between two sites.

const reason = skipReason();
let sites: Sites;

beforeAll(async () => {
  if (!reason) sites = await startSites();
});
afterAll(async () => {
  await sites?.stop();
});

async function open(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

/** Clicks a button of the example page and waits for the answer's status line. */
async function click(page: Page, id: string): Promise<string> {
  await page.click(`#${id}`);
  await page.waitForFunction(() => document.getElementById('status')?.dataset.status !== undefined, undefined, { timeout: 30_000 });
  return (await page.getAttribute('#status', 'data-status'))!;
}

const who = (page: Page) => page.textContent('#who');

async function signUpAndVerify(page: Page, email: string, password: string): Promise<void> {
  await page.fill('#email', email);
  await page.fill('#password', password);
  expect(await click(page, 'signup')).toBe('200');
  await page.fill('#code', await codeFor(sites.env.sink, email));
  expect(await click(page, 'verify')).toBe('200');
}

describe.skipIf(reason)(`browser: the example app in Chromium${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('signs up (hashcash solved in a Web Worker), verifies by code, shows /v1/me; the cookies are HttpOnly, SameSite=Lax, on the API host', async () => {
    const context = await sites.context();
    const page = await open(context, sites.oneUrl);
    expect(await page.textContent('#app-name')).toBe('One');
    const email = uniqueEmail('browser');
    await signUpAndVerify(page, email, 'correct horse battery');
    expect(await who(page)).toBe(`Signed in as ${email} (verified).`);
    expect(await click(page, 'me')).toBe('200');
    expect(JSON.parse((await page.textContent('#out'))!.split('\n(request')[0])).toMatchObject({ email, email_verified: true, is_bot: false });

    const jar = (await context.cookies()).filter((c) => c.domain === '127.0.0.1');
    const session = jar.find((c) => c.name === '__session')!;
    const refresh = jar.find((c) => c.name === '__refresh')!;
    expect(session).toMatchObject({ domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Lax', secure: false });
    expect(session.expires - Date.now() / 1000).toBeGreaterThan(800);
    expect(session.expires - Date.now() / 1000).toBeLessThanOrEqual(900);
    expect(refresh).toMatchObject({ domain: '127.0.0.1', path: '/v1/tokens/session', httpOnly: true, sameSite: 'Lax' });
    // HttpOnly: the page's own script cannot read them.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    // Host-only cookies of 127.0.0.1: the other site (localhost) holds none.
    expect(await context.cookies(sites.twoApi)).toEqual([]);
  });

  it('refreshes through the __refresh cookie (both cookies renewed), then logs out (cookies cleared, /v1/me 401)', async () => {
    const context = await sites.context();
    const page = await open(context, sites.oneUrl);
    await signUpAndVerify(page, uniqueEmail('refresh'), 'correct horse battery');
    const before = await context.cookies();
    await new Promise((done) => setTimeout(done, 1100)); // a new second: a new access token differs
    expect(await click(page, 'refresh')).toBe('200');
    const after = await context.cookies();
    for (const name of ['__session', '__refresh']) {
      expect(after.find((c) => c.name === name)!.value, name).not.toBe(before.find((c) => c.name === name)!.value);
    }
    expect(await click(page, 'logout')).toBe('200');
    expect(await context.cookies()).toEqual([]);
    expect(await click(page, 'me')).toBe('401');
    expect(await who(page)).toBe('Not signed in.');
  });

  it('signs in by password in a fresh browser', async () => {
    const email = uniqueEmail('password');
    await signUpAndVerify(await open(await sites.context(), sites.oneUrl), email, 'correct horse battery');
    const page = await open(await sites.context(), sites.oneUrl);
    expect(await who(page)).toBe('Not signed in.');
    await page.fill('#email', email);
    await page.fill('#password', 'correct horse battery');
    expect(await click(page, 'signin-password')).toBe('200');
    expect(await who(page)).toBe(`Signed in as ${email} (verified).`);
  });

  it('signs in by magic link: the emailed link opens the API, which sets the cookies and redirects to the page', async () => {
    const email = uniqueEmail('magic');
    await signUpAndVerify(await open(await sites.context(), sites.oneUrl), email, 'correct horse battery');
    const context = await sites.context();
    const page = await open(context, sites.oneUrl);
    await page.fill('#email', email);
    expect(await click(page, 'magic-link')).toBe('200');
    expect(await page.textContent('#out')).toMatch(/magic_link_sent/);
    // The second email to this address (the first was the sign-up's): mail leaves through the outbox.
    const link = await linkFor(sites.env.sink, email, 2);
    expect(link.origin).toBe(sites.oneApi);
    await page.goto(link.href);
    await page.waitForSelector('body[data-ready="true"]');
    expect(page.url()).toBe(sites.oneUrl);
    expect(await who(page)).toBe(`Signed in as ${email} (verified).`);
    // Opened again, the used link shows a page a person can read, with the way back to the app.
    await page.goto(link.href);
    expect(await page.textContent('h1')).toBe('This link was already used');
    await page.click('a.button');
    await page.waitForSelector('body[data-ready="true"]');
    expect(page.url()).toBe(sites.oneUrl);
  });

  it('hops to the second app by SSO: Two (another site) signs the same email in with its own session', async () => {
    const context = await sites.context();
    const page = await open(context, sites.oneUrl);
    const email = uniqueEmail('sso');
    await signUpAndVerify(page, email, 'correct horse battery');
    await page.click('#sso-two');
    await page.waitForURL(`${sites.twoUrl}**`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.textContent('#app-name')).toBe('Two');
    expect(await page.getAttribute('#status', 'data-status')).toBe('200');
    expect(await who(page)).toBe(`Signed in as ${email} (verified).`);
    // The one-time token left the address bar; each site holds its own session cookie.
    expect(page.url()).not.toMatch(/__sso_token/);
    const twoSession = (await context.cookies(sites.twoApi)).find((c) => c.name === '__session')!;
    const oneSession = (await context.cookies(sites.oneApi)).find((c) => c.name === '__session')!;
    expect(twoSession.domain).toBe('localhost');
    expect(twoSession.value).not.toBe(oneSession.value);
  });
});
