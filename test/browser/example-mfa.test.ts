import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { linkFor, uniqueEmail } from '../helpers/accounts.js';
import { codeAt, userWithTotp } from '../helpers/mfa.js';
import { act, expectNoTokenInPage, open, screenshot, signedInAs, signedOut, signIn, signUpAndConfirm } from './example-page.js';
import { useSites } from './harness.js';

// The example app's second factors in Chromium (docs/mfa.md): the Security card adds an authenticator app
// (the QR code and the key on screen, a first code, the 10 recovery codes shown once), renames and removes
// it; signing in then asks for the second step (a code, a recovery code), after a password or after an
// emailed link whose landing carries ?mfa_token=. The test reads the key the page shows, as a person's
// authenticator app would, and computes its codes.

const { reason, sites } = useSites();

/** "Add an authenticator app" as a person does it: the key read off the page, its current code typed in. */
async function addAuthenticatorApp(page: Page, name = ''): Promise<{ secret: string; recoveryCodes: string[] }> {
  await page.fill('#totp-name', name);
  expect(await act(page, '#add-totp')).toEqual({ state: 'ok', text: 'Scan the QR code with your authenticator app, then enter the code it shows.' });
  const secret = (await page.textContent('#totp-secret'))!.replace(/\s/g, '');
  await page.fill('#totp-code', codeAt(secret));
  expect(await act(page, '#confirm-totp')).toEqual({ state: 'ok', text: 'Authenticator app added. Save your recovery codes now: they are not shown again.' });
  return { secret, recoveryCodes: await page.locator('#recovery-list li').allTextContents() };
}

describe.skipIf(reason)(`browser: the example app's second factors${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('adds an authenticator app (QR code, key, first code), shows 10 recovery codes once; the next password sign-in asks for a code, then a recovery code', async () => {
    const page = await open(await sites.context(), sites.oneUrl);
    await page.setViewportSize({ width: 1100, height: 760 });
    const email = uniqueEmail('totp-ui');
    await signUpAndConfirm(sites, page, email);
    expect(await page.textContent('#factors-empty')).toBe('No second step yet.');

    await page.fill('#totp-name', 'My phone');
    expect(await act(page, '#add-totp')).toMatchObject({ state: 'ok' });
    expect(await page.isVisible('#totp-setup')).toBe(true);
    // The server's SVG QR code renders as an image; the key is the otpauth secret, in groups of four.
    expect(await page.getAttribute('#totp-qr', 'src')).toMatch(/^data:image\/svg\+xml;utf8,%3Csvg/);
    await page.waitForFunction(() => (document.getElementById('totp-qr') as HTMLImageElement).naturalWidth > 0);
    const shown = (await page.textContent('#totp-secret'))!;
    expect(shown).toMatch(/^([A-Z2-7]{4} ){7}[A-Z2-7]{4}$/);
    const secret = shown.replace(/\s/g, '');
    expect(await page.textContent('#factor-list')).toContain('Not confirmed');
    await screenshot(page, 'example-app-security.png');

    // A wrong first code: the server's refusal, and the setup stays open for another try.
    await page.fill('#totp-code', codeAt(secret) === '000000' ? '111111' : '000000');
    expect(await act(page, '#confirm-totp')).toMatchObject({ state: 'error', text: expect.stringMatching(/code/i) });
    expect(await page.isVisible('#totp-setup')).toBe(true);

    await page.fill('#totp-code', codeAt(secret));
    expect(await act(page, '#confirm-totp')).toEqual({ state: 'ok', text: 'Authenticator app added. Save your recovery codes now: they are not shown again.' });
    expect(await page.isVisible('#totp-setup')).toBe(false);
    const recoveryCodes = await page.locator('#recovery-list li').allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect(await page.locator('#factor-list li .grow').allTextContents()).toEqual([expect.stringMatching(/^My phone · /)]);
    expect(await page.locator('#factor-list li .tag').allTextContents()).toEqual(['Authenticator app']);
    expect(await page.textContent('#recovery-left')).toBe('10 unused recovery codes left.');
    await expectNoTokenInPage(page); // the aal2 access token went to the cookie, not the page
    await page.click('#recovery-done');
    expect(await page.isVisible('#recovery-codes')).toBe(false);
    expect(await page.locator('#recovery-list li').count()).toBe(0); // shown once: gone from the page

    expect(await act(page, '#sign-out')).toMatchObject({ state: 'ok' });
    await signedOut(page);
    expect(await signIn(page, email, 'correct horse battery')).toEqual({ state: 'ok', text: 'One more step: confirm it is you.' });
    expect(await page.isVisible('#mfa-step')).toBe(true);
    expect(await page.isVisible('#use-mfa-passkey')).toBe(false); // the account has no passkey
    expect(await page.evaluate(() => document.body.dataset.view)).toBe('signed-out');
    await page.fill('#mfa-code', codeAt(secret, 1)); // the confirmation spent this step: the next one
    expect(await act(page, '#use-mfa-code')).toEqual({ state: 'ok', text: 'Welcome back.' });
    await signedInAs(page, email);

    // A lost phone: a recovery code signs in once, and the count goes down.
    expect(await act(page, '#sign-out')).toMatchObject({ state: 'ok' });
    await signedOut(page);
    expect(await signIn(page, email, 'correct horse battery')).toEqual({ state: 'ok', text: 'One more step: confirm it is you.' });
    await page.fill('#mfa-code', recoveryCodes[3]!);
    expect(await act(page, '#use-mfa-code')).toEqual({ state: 'ok', text: 'Welcome back.' });
    await signedInAs(page, email);
    expect(await page.textContent('#recovery-left')).toBe('9 unused recovery codes left.');
  });

  it('renames and removes the authenticator app; a session from before it was added is signed out by it', async () => {
    const page = await open(await sites.context(), sites.oneUrl);
    const email = uniqueEmail('rename-ui');
    await signUpAndConfirm(sites, page, email);
    const older = await open(await sites.context(), sites.oneUrl);
    expect(await signIn(older, email, 'correct horse battery')).toEqual({ state: 'ok', text: 'Welcome back.' }); // no factor yet: aal1
    await signedInAs(older, email);
    await addAuthenticatorApp(page, 'Phone');

    await page.click('#factor-list li button.rename');
    await page.fill('#factor-list li .rename-input', 'Work phone');
    expect(await act(page, '#factor-list li button.save-name')).toEqual({ state: 'ok', text: 'Renamed to Work phone.' });
    expect(await page.textContent('#factor-list li .grow')).toMatch(/^Work phone · /);

    // The first factor signed out every other session (docs/mfa.md): the older tab is signed out, and the
    // factor is still there.
    await older.reload();
    await signedOut(older);
    expect(await page.locator('#factor-list li').count()).toBe(1);

    expect(await act(page, '#factor-list li button.remove')).toEqual({ state: 'ok', text: 'Work phone removed.' });
    expect(await page.locator('#factor-list li').count()).toBe(0);
    expect(await page.isVisible('#factors-empty')).toBe(true);
    expect(await page.isVisible('#recovery-left')).toBe(false);
    // No factor left: the password alone signs in again.
    const later = await open(await sites.context(), sites.oneUrl);
    expect(await signIn(later, email, 'correct horse battery')).toEqual({ state: 'ok', text: 'Welcome back.' });
    await signedInAs(later, email);
  });

  it('an emailed sign-in link for an account with a second factor lands on the second step (?mfa_token= read and removed), and the code signs in', async () => {
    const user = await userWithTotp(sites.env, sites.one);
    const page = await open(await sites.context(), sites.oneUrl);
    await page.fill('#email', user.email);
    expect(await act(page, '#email-link')).toMatchObject({ state: 'ok' });
    const link = await linkFor(sites.env.sink, user.email, 3); // the sign-up's code, the enrollment's notice, this link
    await page.goto(link.href);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.textContent('#notice')).toBe('One more step: confirm it is you.');
    expect(await page.isVisible('#mfa-step')).toBe(true);
    expect(page.url()).toBe(sites.oneUrl); // the mfa_token left the address bar
    // The redirect carries the token alone; the client asked POST /v1/mfa/challenge which factors the account
    // has: an authenticator app only, so no passkey button.
    expect(await page.isVisible('#use-mfa-passkey')).toBe(false);
    await page.fill('#mfa-code', codeAt(user.secret, 1));
    expect(await act(page, '#use-mfa-code')).toEqual({ state: 'ok', text: 'Welcome back.' });
    await signedInAs(page, user.email);
  });
});
