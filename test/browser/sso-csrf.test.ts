import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { uniqueEmail, verifiedUser } from '../helpers/accounts.js';
import { api } from '../helpers/fixtures.js';
import { act, open, signedInAs, signedOut, signUpAndConfirm } from './example-page.js';
import { useSites } from './harness.js';

// Issue 45 finding 5, SSO login CSRF, in Chromium with the example app: an intruder's SSO link (their own
// one-time token, for app Two's page) opened by someone else must not sign that browser in as the intruder.
// Two's client exchanges only a hop its own tab started (a nonce in sessionStorage, bound to the token by
// the bridge) and never over a live session.

const { reason, sites } = useSites();

/**
 * The intruder's link: a verified user of One, signed in by a sign-in token, asks One's bridge for a token
 * to Two's page, with or without a nonce of the intruder's own, as any browser of theirs could.
 */
async function intrudersLink(nonce?: string): Promise<{ href: string; email: string }> {
  const intruder = await verifiedUser(sites.env, sites.one, uniqueEmail('intruder'));
  const { token } = (await api(sites.env.server, 'POST', '/v1/sign_in_tokens', { bearer: sites.one.secret_key, body: { user_id: intruder.userId } })).body;
  const query = `publishable_key=${sites.one.publishable_key}&return_to=${encodeURIComponent(sites.twoUrl)}${nonce ? `&nonce=${nonce}` : ''}`;
  const hop = await api(sites.env.server, 'GET', `/v1/sso/bridge?${query}`, { bearer: token });
  expect(hop.status).toBe(302);
  return { href: hop.headers.get('location')!, email: intruder.email };
}

/** Who Two's API says this browser is, asked from Two's page (its cookie): an email, or the status. */
const whoOnTwo = (page: Page) =>
  page.evaluate(async ({ api, key }) => {
    const res = await fetch(`${api}/v1/me`, { headers: { 'x-publishable-key': key }, credentials: 'include' });
    return res.ok ? ((await res.json()) as { email: string }).email : res.status;
  }, { api: sites.twoApi, key: sites.two.publishable_key });

/** A person signed up on One who went to Two with "Open Two": the legitimate hop, which Two's page asked for. */
async function victimOnBoth(): Promise<{ context: BrowserContext; page: Page; email: string }> {
  const context = await sites.context();
  const page = await open(context, sites.oneUrl);
  const email = uniqueEmail('victim');
  await signUpAndConfirm(sites, page, email);
  await page.click('#sso-two');
  await page.waitForURL(`${sites.twoUrl}**`);
  await signedInAs(page, email);
  expect(await page.textContent('#notice')).toBe('You are signed in to Two with your account from the other app.');
  expect(page.url()).toBe(sites.twoUrl); // neither the token nor ?sign_in_with is left in the address
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0); // the nonce served its one landing
  return { context, page, email };
}

describe.skipIf(reason)(`browser: SSO login CSRF${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it("a signed-in victim who opens the intruder's SSO link stays signed in as themselves (links with and without the intruder's nonce)", async () => {
    const victim = await victimOnBoth();
    for (const nonce of [undefined, 'intruders-own-nonce-0123456789abcdef']) {
      const link = await intrudersLink(nonce);
      const page = await victim.context.newPage();
      await page.goto(link.href);
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.textContent('#notice')).toBe('That sign-in link did not come from this page, so it was ignored.');
      await signedInAs(page, victim.email);
      expect(await whoOnTwo(page)).toBe(victim.email);
      expect(page.url()).not.toMatch(/__sso_token/);
      // Nothing was made for the intruder in Two: the token was never exchanged.
      const listed = await api(sites.env.server, 'GET', `/v1/users?email=${encodeURIComponent(link.email)}`, { bearer: sites.two.secret_key });
      expect(listed.body.users).toEqual([]);
    }
  });

  it("a signed-out visitor who opens the intruder's link is not signed in as the intruder", async () => {
    const context = await sites.context();
    const link = await intrudersLink();
    const page = await context.newPage();
    await page.goto(link.href);
    await page.waitForSelector('body[data-ready="true"]');
    await signedOut(page);
    expect(await page.textContent('#notice')).toBe('That sign-in link did not come from this page, so it was ignored.');
    expect(await whoOnTwo(page)).toBe(401);
  });

  it("over a live session, even a hop this tab asked for is left to the page: the intruder's token bound to the tab's own nonce signs nobody in", async () => {
    const victim = await victimOnBoth();
    // The worst case: the tab holds a nonce (it started a hop) and a token bound to that very nonce arrives
    // for another person. The client does not exchange over the live session; the page keeps its person.
    const nonce = 'the-tabs-own-nonce-0123456789abcdef';
    await victim.page.evaluate(({ key, value }) => sessionStorage.setItem(`gatehouse.${key}.sso_nonce`, value), { key: sites.two.publishable_key, value: nonce });
    const link = await intrudersLink(nonce);
    await victim.page.goto(link.href);
    await victim.page.waitForSelector('body[data-ready="true"]');
    expect(await victim.page.textContent('#notice')).toBe('You are already signed in to Two: the sign-in from the other app was not used.');
    await signedInAs(victim.page, victim.email);
    expect(await whoOnTwo(victim.page)).toBe(victim.email);
  });

  it('the legitimate hop started from Two\'s own page: "Sign in with your One account" while signed out on Two', async () => {
    const context = await sites.context();
    const one = await open(context, sites.oneUrl);
    const email = uniqueEmail('pull');
    await signUpAndConfirm(sites, one, email);
    const two = await open(context, sites.twoUrl);
    await signedOut(two);
    await two.click('#sso-from-one');
    await two.waitForURL(`${sites.twoUrl}**`);
    await signedInAs(two, email);
    expect(await whoOnTwo(two)).toBe(email);
    // Signing out of Two leaves One's session alone.
    expect(await act(two, '#sign-out')).toEqual({ state: 'ok', text: 'You are signed out.' });
    expect(await one.evaluate(async ({ api, key }) => (await fetch(`${api}/v1/me`, { headers: { 'x-publishable-key': key }, credentials: 'include' })).status, { api: sites.oneApi, key: sites.one.publishable_key })).toBe(200);
  });
});
