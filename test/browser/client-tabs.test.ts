import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { uniqueEmail, verifiedUser } from '../helpers/accounts.js';
import { useSites } from './harness.js';

// @gatehouse/client with Bearer tokens in a real Chromium (the cross-site, mobile-web set-up): the session
// in localStorage, two tabs that call refreshSession() at the same moment. The Web Lock lets one refresh;
// the other waits for its result and spends nothing, so a rotated token is never sent twice.

const { reason, sites } = useSites({ checkCsp: false });

/** Runs `body` in the page with `gatehouse`, a Bearer client over localStorage (as text: vitest rewrites import()). */
function withClient<T>(page: Page, body: string): Promise<T> {
  const make = `(await import('/client/index.js')).createClient({ url: ${JSON.stringify(sites.oneApi)}, publishableKey: ${JSON.stringify(sites.one.publishable_key)}, storage: localStorage })`;
  return page.evaluate(`(async () => { const gatehouse = ${make}; ${body} })()`) as Promise<T>;
}

describe.skipIf(reason)(`browser: @gatehouse/client with Bearer tokens in two tabs${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('39 client sdk: two tabs refreshing at once send one refresh; both end with the same new tokens and the session lives', async () => {
    const { email, password } = await verifiedUser(sites.env, sites.one, uniqueEmail('tabs-bearer'));
    const context = await sites.context();
    // A bare page of site One (the example app's own cookie client stays out of it): the client is served at /client/.
    const blank = `${sites.oneUrl}blank`;
    const first = await context.newPage();
    await first.goto(blank);
    const before = await withClient<{ refresh_token: string }>(first, `return gatehouse.auth.signInWithPassword(${JSON.stringify({ email, password })});`);
    expect(await context.cookies()).toEqual([]); // Bearer: credentials omitted, no cookie kept
    const second = await context.newPage();
    await second.goto(blank);

    // Each tab's client made first (kept on window), then both refreshes started at once.
    for (const page of [first, second]) await withClient(page, 'window.gatehouse = gatehouse;');
    const sent: string[] = [];
    const answers: number[] = [];
    context.on('request', (r) => {
      if (r.url().endsWith('/v1/tokens/session') && r.method() === 'POST') sent.push(JSON.parse(r.postData() ?? '{}').refresh_token);
    });
    context.on('response', (r) => {
      if (r.url().endsWith('/v1/tokens/session') && r.request().method() === 'POST') answers.push(r.status());
    });
    const both = (await Promise.all([first, second].map((page) => page.evaluate('window.gatehouse.auth.refreshSession()')))) as Array<{ refresh_token: string }>;
    // Never one refresh token twice (a reuse is refused, and later revokes the session): usually one request in all.
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(new Set(sent).size).toBe(sent.length);
    expect(answers.every((status) => status === 200)).toBe(true);
    expect(both[0].refresh_token).toBe(both[1].refresh_token);
    expect(both[0].refresh_token).not.toBe(before.refresh_token);
    for (const page of [first, second]) {
      expect(await withClient(page, 'return (await gatehouse.auth.getUser())?.email;')).toBe(email);
    }
    expect(await first.evaluate(() => JSON.stringify({ ...localStorage }))).toContain(both[0].refresh_token);
  });
});
