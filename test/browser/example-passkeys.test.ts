import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { verifiedUser } from '../helpers/accounts.js';
import { act, open, signedInAs, signedOut, signIn } from './example-page.js';
import { useSites } from './harness.js';

// Passkeys in the example app, in Chromium, through @gatehouse/client (and @simplewebauthn/browser, which
// it loads on the first passkey call): "Add a passkey" on the Security card, "Sign in with a passkey" on the
// signed-out view, and "Use a passkey" as the second step of a password sign-in. CDP's virtual authenticator
// (CTAP2, internal, resident keys, user verification) stands in for the device. Site Two
// (http://localhost:<port>) is used: a WebAuthn relying-party id must be a domain, and 127.0.0.1 is not.

const { reason, sites } = useSites();

/** Site Two's page in a fresh profile, with a virtual platform authenticator (a laptop with a passkey store). */
async function deviceWithAuthenticator(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await sites.context();
  const page = await open(context, sites.twoUrl);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { context, page };
}

describe.skipIf(reason)(`browser: passkeys in the example app${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('adds a passkey (10 recovery codes), signs out, and "Sign in with a passkey" signs the same person in with no email typed', async () => {
    const user = await verifiedUser(sites.env, sites.two);
    const { page } = await deviceWithAuthenticator();
    expect(await signIn(page, user.email, user.password)).toEqual({ state: 'ok', text: 'Welcome back.' });
    await signedInAs(page, user.email);
    expect(await page.textContent('#factors-empty')).toBe('No second step yet.');

    await page.fill('#totp-name', 'Work laptop');
    expect(await act(page, '#add-passkey')).toEqual({ state: 'ok', text: 'Passkey added. Save your recovery codes now: they are not shown again.' });
    expect(await page.locator('#recovery-list li').count()).toBe(10);
    expect(await page.locator('#factor-list li .grow').allTextContents()).toEqual([expect.stringMatching(/^Work laptop · /)]);
    expect(await page.locator('#factor-list li .tag').allTextContents()).toEqual(['Passkey']);

    expect(await act(page, '#sign-out')).toMatchObject({ state: 'ok' });
    await signedOut(page);
    expect(await act(page, '#passkey-sign-in')).toEqual({ state: 'ok', text: 'Welcome back.' });
    await signedInAs(page, user.email);
    // The session is the passkey's: the list says it was just used.
    expect(await page.textContent('#factor-list li .grow')).toMatch(/^Work laptop · last used /);
  });

  it('a password sign-in of an account with a passkey asks for the second step; "Use a passkey" completes it', async () => {
    const user = await verifiedUser(sites.env, sites.two);
    const { page } = await deviceWithAuthenticator();
    expect(await signIn(page, user.email, user.password)).toEqual({ state: 'ok', text: 'Welcome back.' });
    await signedInAs(page, user.email);
    expect(await act(page, '#add-passkey')).toMatchObject({ state: 'ok' });
    expect(await act(page, '#sign-out')).toMatchObject({ state: 'ok' });
    await signedOut(page);

    expect(await signIn(page, user.email, user.password)).toEqual({ state: 'ok', text: 'One more step: confirm it is you.' });
    expect(await page.isVisible('#mfa-step')).toBe(true);
    expect(await page.isVisible('#use-mfa-passkey')).toBe(true);
    expect(await act(page, '#use-mfa-passkey')).toEqual({ state: 'ok', text: 'Welcome back.' });
    await signedInAs(page, user.email);
  });

  it('removes the passkey from the Security card; the device still holds it, but signing in with it is refused', async () => {
    const user = await verifiedUser(sites.env, sites.two);
    const { page } = await deviceWithAuthenticator();
    expect(await signIn(page, user.email, user.password)).toEqual({ state: 'ok', text: 'Welcome back.' });
    await signedInAs(page, user.email);
    expect(await act(page, '#add-passkey')).toMatchObject({ state: 'ok' });
    const name = (await page.textContent('#factor-list li .grow'))!.split(' · ')[0];
    expect(await act(page, '#factor-list li button.remove')).toEqual({ state: 'ok', text: `${name} removed.` });
    expect(await page.locator('#factor-list li').count()).toBe(0);

    expect(await act(page, '#sign-out')).toMatchObject({ state: 'ok' });
    await signedOut(page);
    expect(await act(page, '#passkey-sign-in')).toEqual({ state: 'error', text: expect.stringMatching(/^The passkey could not be verified\. \(reference \S+\)$/) });
    await signedOut(page);
    // The password alone signs in again: the account has no second factor left.
    expect(await signIn(page, user.email, user.password)).toEqual({ state: 'ok', text: 'Welcome back.' });
  });
});
