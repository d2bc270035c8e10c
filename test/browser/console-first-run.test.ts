import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { codeAt, userWithTotp } from '../helpers/mfa.js';
import { checkView, expectNoSecretsSent, fill, press, signInInConsole, signUpInConsole, startConsole, storedByPage, view, type ConsoleSite } from './console-page.js';
import { skipReason } from './harness.js';

// docs/console.md, the first minutes: from the setup link `serve` printed on an empty database to the
// operator's tenant, through the console's own sign-up (proof-of-work, emailed code), sign out, sign in with
// a password, and a second factor (TOTP, then a recovery code). axe, the keyboard and 320 px on each view.

const skip = skipReason();
let site: ConsoleSite;

beforeAll(async () => {
  if (!skip) site = await startConsole();
}, 180_000);
afterAll(async () => {
  await site?.stop();
});

describe.skipIf(skip)('the console, first run', () => {
  it('the setup link: the operator signs up, the token is consumed, a tenant is made and renamed; sign out and in again', { timeout: 300_000 }, async () => {
    const context = await site.context();
    const page = await context.newPage();
    const email = uniqueEmail('operator');
    await page.goto(site.setupUrl);
    await view(page, 'Create your console account');
    await checkView(page, 'setup');
    await signUpInConsole(site, page, email);
    await view(page, 'Tenants');
    await page.getByText('You are the operator now').waitFor();
    // Consumed: the operator is named in the CLI's list.
    expect(JSON.parse((await site.env.server.cli(['operator', 'list', '--json'])).stdout).operators.map((o: { email: string }) => o.email)).toEqual([email]);
    await checkView(page, 'tenants');

    await fill(page, 'Tenant name', 'Acme');
    await press(page, 'Create tenant');
    await view(page, 'Tenant settings');
    expect(await page.getByLabel('Tenant', { exact: true }).inputValue()).not.toBe('');
    await checkView(page, 'tenant-settings');
    await fill(page, 'Tenant name', 'Acme Inc');
    await press(page, 'Save name');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await page.getByRole('option', { name: 'Acme Inc (owner)' }).count()).toBe(1);
    // A refusal shows the server's detail and code: an empty name is 400.
    await fill(page, 'Tenant name', ' ');
    await press(page, 'Save name');
    const problem = page.getByRole('alert');
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/Error code: validation_failed \(HTTP 400\)/);

    await page.getByRole('link', { name: 'Tenants', exact: true }).click();
    await view(page, 'Tenants');
    expect(await page.getByRole('link', { name: 'Acme Inc' }).count()).toBe(1);
    await press(page, 'Sign out');
    await signInInConsole(page, email);
    await view(page, 'Tenants');
    expect(await page.getByRole('link', { name: 'Acme Inc' }).count()).toBe(1);

    // The session was Bearer tokens in memory: no cookie, nothing in web storage.
    expect(await storedByPage(context, page)).toEqual({ cookies: 0, local: [], session: [] });
    // A reload forgets it.
    await page.reload();
    await view(page, 'Sign in to the console');
    expect(site.cspViolations).toEqual([]);
    expectNoSecretsSent(site);
    await context.close();
  });

  it('an account with a second factor: the TOTP code, or a recovery code, completes the sign-in', { timeout: 180_000 }, async () => {
    const user = await userWithTotp(site.env, site.app);
    const context = await site.context();
    const page = await context.newPage();
    await page.goto(site.setupUrl.replace(/\/setup\?.*$/, '/'));
    await signInInConsole(page, user.email);
    await view(page, 'Second factor');
    await checkView(page, 'second-factor');
    await fill(page, 'Code from your authenticator app', '000000');
    await press(page, 'Continue');
    await page.getByRole('alert').waitFor();
    await fill(page, 'Code from your authenticator app', codeAt(user.secret, 1));
    await press(page, 'Continue');
    await view(page, 'Tenants');
    await page.getByText('You belong to no tenant yet').waitFor();
    await press(page, 'Sign out');
    await signInInConsole(page, user.email);
    await view(page, 'Second factor');
    await press(page, 'Use a recovery code instead');
    await fill(page, 'Recovery code', user.recoveryCodes[0]!);
    await press(page, 'Continue');
    await view(page, 'Tenants');
    expect(site.cspViolations).toEqual([]);
    expectNoSecretsSent(site);
    await context.close();
  });
});
