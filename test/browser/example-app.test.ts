import { describe, expect, it } from 'vitest';
import { codeFor, linkFor, uniqueEmail } from '../helpers/accounts.js';
import { act, expectNoTokenInPage, open, png, screenshot, signedInAs, signedOut, signIn, signUpAndConfirm } from './example-page.js';
import { useSites } from './harness.js';

// The example web app (examples/web, built on @gatehouse/client) in a real Chromium: sign-up with the
// proof-of-work in a Web Worker, each way to sign in, the cookies as the browser's own jar holds them,
// SSO between two sites. UPDATE_SCREENSHOTS=1 also writes the two views into docs/ (README links them).

const { reason, sites } = useSites();

describe.skipIf(reason)(`browser: the example app in Chromium${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('signs up (proof-of-work in a Web Worker) and confirms by code; the cookies are HttpOnly, SameSite=Lax, on the API host; no token is ever in the page', async () => {
    const context = await sites.context();
    const page = await open(context, sites.oneUrl);
    await page.setViewportSize({ width: 1100, height: 760 });
    expect(await page.textContent('#app-name')).toBe('One');
    expect(await page.getAttribute('body', 'data-view')).toBe('signed-out');
    await screenshot(page, 'example-app-signed-out.png');

    const email = uniqueEmail('browser');
    await signUpAndConfirm(sites, page, email);
    expect(await page.textContent('#profile-verified')).toBe('Email confirmed');
    expect(await page.textContent('#session-list')).toMatch(/Chrome on Linux.*This device/);

    const jar = (await context.cookies()).filter((c) => c.domain === '127.0.0.1');
    const session = jar.find((c) => c.name === '__session')!;
    const refresh = jar.find((c) => c.name === '__refresh')!;
    expect(session).toMatchObject({ domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Lax', secure: false });
    expect(session.expires - Date.now() / 1000).toBeGreaterThan(800);
    expect(refresh).toMatchObject({ domain: '127.0.0.1', path: '/v1/tokens/session', httpOnly: true, sameSite: 'Lax' });
    // Host-only cookies of 127.0.0.1: the other site (localhost) holds none.
    expect(await context.cookies(sites.twoApi)).toEqual([]);
    await expectNoTokenInPage(page);

    await page.fill('#note-title', 'Water the plants');
    expect(await act(page, '#add-note')).toEqual({ state: 'ok', text: 'Note saved.' });
    await page.setInputFiles('#avatar-file', { name: 'me.png', mimeType: 'image/png', buffer: png(96, 'gradient') });
    await page.waitForSelector('#notice[data-state="ok"]:text("Picture updated.")');
    await page.reload();
    await signedInAs(page, email);
    expect(await page.textContent('#note-list')).toContain('Water the plants');
    await page.waitForFunction(() => (document.getElementById('avatar') as HTMLImageElement).naturalWidth === 96);
    await screenshot(page, 'example-app-signed-in.png');
  });

  it('signs in by password in a fresh browser, and signs out (cookies cleared, the signed-out view)', async () => {
    const email = uniqueEmail('password');
    await signUpAndConfirm(sites, await open(await sites.context(), sites.oneUrl), email);
    const context = await sites.context();
    const page = await open(context, sites.oneUrl);
    expect(await signIn(page, email, 'not my password')).toMatchObject({ state: 'error', text: expect.stringMatching(/\(reference [\w-]+\)$/) });
    expect(await signIn(page, email, 'correct horse battery')).toEqual({ state: 'ok', text: 'Welcome back.' });
    await signedInAs(page, email);
    expect(await act(page, '#sign-out')).toEqual({ state: 'ok', text: 'You are signed out.' });
    await signedOut(page);
    expect(await context.cookies()).toEqual([]);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.getAttribute('body', 'data-view')).toBe('signed-out');
  });

  it('signs in with a code from the email', async () => {
    const email = uniqueEmail('code');
    await signUpAndConfirm(sites, await open(await sites.context(), sites.oneUrl), email);
    const page = await open(await sites.context(), sites.oneUrl);
    await page.fill('#email', email);
    expect(await act(page, '#email-code')).toEqual({ state: 'ok', text: 'Check your email.' });
    await page.fill('#code', await codeFor(sites.env.sink, email, 2));
    expect(await act(page, '#use-code')).toEqual({ state: 'ok', text: 'Welcome back.' });
    await signedInAs(page, email);
  });

  it('signs in by magic link: the link opens the API, which sets the cookies and sends the person back with a message', async () => {
    const email = uniqueEmail('magic');
    await signUpAndConfirm(sites, await open(await sites.context(), sites.oneUrl), email);
    const page = await open(await sites.context(), sites.oneUrl);
    await page.fill('#email', email);
    expect(await act(page, '#email-link')).toEqual({ state: 'ok', text: `We sent a sign-in link to ${email}. Open it on this device.` });
    const link = await linkFor(sites.env.sink, email, 2);
    expect(link.origin).toBe(sites.oneApi);
    await page.goto(link.href);
    await page.waitForSelector('body[data-ready="true"]');
    await signedInAs(page, email);
    expect(await page.textContent('#notice')).toBe('You are signed in from the link in your email.');
    expect(page.url()).toBe(sites.oneUrl); // the landing marker left the address bar
    // Opened again, the used link shows a page a person can read, with the way back to the app.
    await page.goto(link.href);
    expect(await page.textContent('h1')).toBe('This link was already used');
    await page.click('a.button');
    await page.waitForSelector('body[data-ready="true"]');
    expect(page.url()).toBe(sites.oneUrl);
  });

  it("serves a strict Content-Security-Policy: scripts only from the site, requests only to the site and its API (another origin's fetch is blocked)", async () => {
    for (const [url, apiOrigin] of [[sites.oneUrl, sites.oneApi], [`${sites.twoUrl}app.js`, sites.twoApi]]) {
      const policy = (await fetch(url)).headers.get('content-security-policy')!;
      expect(policy).toContain("default-src 'self'");
      expect(policy).toContain("script-src 'self' 'wasm-unsafe-eval'");
      expect(policy).toContain(`connect-src 'self' ${apiOrigin}`);
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain('unsafe-inline');
    }
    const page = await open(await sites.context(), sites.oneUrl);
    const outcome = await page.evaluate((evil) => fetch(evil).then(() => 'sent', () => 'blocked'), sites.evilUrl);
    expect(outcome).toBe('blocked');
    // Chromium's own console error and the page's securitypolicyviolation event arrive after the fetch fails.
    await expect.poll(() => sites.cspViolations.filter((line) => line.includes('connect-src')).length).toBe(2);
    await page.close();
    sites.cspViolations.length = 0; // the one this test caused on purpose
  });

  it('opens the second app by SSO: Two (another site) signs the same email in with its own session', async () => {
    const context = await sites.context();
    const page = await open(context, sites.oneUrl);
    const email = uniqueEmail('sso');
    await signUpAndConfirm(sites, page, email);
    await page.click('#sso-two');
    await page.waitForURL(`${sites.twoUrl}**`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.textContent('#app-name')).toBe('Two');
    await signedInAs(page, email);
    expect(await page.textContent('#notice')).toBe('You are signed in to Two with your account from the other app.');
    // The one-time token left the address bar; each site holds its own session cookie.
    expect(page.url()).not.toMatch(/__sso_token/);
    const twoSession = (await context.cookies(sites.twoApi)).find((c) => c.name === '__session')!;
    const oneSession = (await context.cookies(sites.oneApi)).find((c) => c.name === '__session')!;
    expect(twoSession.domain).toBe('localhost');
    expect(twoSession.value).not.toBe(oneSession.value);
    await expectNoTokenInPage(page);
  });
});
