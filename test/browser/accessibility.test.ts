import { describe, expect, it } from 'vitest';
import { codeFor, uniqueEmail } from '../helpers/accounts.js';
import { axeViolations } from '../helpers/axe.js';
import { open, signedInAs, signedOut } from './example-page.js';
import { useSites } from './harness.js';

// Pages everyone can use: axe-core (every severity) on each view of the example app and on /docs, and the
// example driven from the keyboard alone: Enter submits each step's form, and focus lands on the heading of
// each new step, as a screen-reader user hears it.

const { reason, sites } = useSites();

describe.skipIf(reason)(`browser: accessibility${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('48 a11y: the example app has no axe violation in any view, and works from the keyboard (Enter submits, focus on each new heading)', async () => {
    const context = await sites.context();
    const page = await open(context, sites.oneUrl);
    expect(await axeViolations(page), 'signed out').toEqual([]);

    const email = uniqueEmail('keyboard');
    await page.focus('#email');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('correct horse battery');
    // "Create account" by keyboard: Tab to it from the password field past "Sign in", then Enter.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('sign-up');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#code-step:not([hidden])', { timeout: 30_000 });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Check your email');
    expect(await axeViolations(page), 'the code step').toEqual([]);

    await page.focus('#code');
    await page.keyboard.type(await codeFor(sites.env.sink, email));
    await page.keyboard.press('Enter');
    await signedInAs(page, email);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Your notebook');
    expect(await axeViolations(page), 'signed in').toEqual([]);

    // Enter in the note field adds the note; Enter in the password form changes the password.
    await page.focus('#note-title');
    await page.keyboard.type('Typed, not clicked');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#note-list li:has-text("Typed, not clicked")');
    await page.focus('#current-password');
    await page.keyboard.type('correct horse battery');
    await page.keyboard.press('Tab');
    await page.keyboard.type('a new horse battery');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#notice[data-state="ok"]:has-text("Password changed")', { timeout: 30_000 });

    await page.click('#sign-out');
    await signedOut(page);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Your notes, anywhere');
    // Enter in the password field signs in with the new password.
    await page.fill('#email', email);
    await page.fill('#password', 'a new horse battery');
    await page.keyboard.press('Enter');
    await signedInAs(page, email);
    await context.close();
  });

  it('48 a11y: /docs (the API reference) has no axe violation', async () => {
    const context = await sites.context();
    const page = await context.newPage();
    await page.goto(`${sites.oneApi}/docs`);
    await page.waitForSelector('h1');
    expect(await axeViolations(page), 'every operation folded').toEqual([]);
    // Every operation's parameters, body and answers shown: the tables are checked too.
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
    expect(await page.locator('table').count()).toBeGreaterThan(50);
    expect(await axeViolations(page), 'every operation unfolded').toEqual([]);
    await context.close();
  });
});
