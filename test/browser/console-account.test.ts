import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepAt, totpCode } from '../../src/crypto/totp.js';
import { consoleUser, type ConsoleUser } from '../helpers/console.js';
import { api } from '../helpers/fixtures.js';
import { checkView, fill, press, signInInConsole, sharedConsole, view, type ConsoleSite, openSignedIn, closeClean } from './console-page.js';
import { skipReason } from './harness.js';

// docs/console.md, "Your account": the signed-in console user's own account, driven in the page and read back
// through the API: the password changed (the old one refused, the new one signs in), an authenticator app
// added (the next sign-in in the console asks for its code), recovery codes renewed (the old set refused, the
// new one signs in), the other sessions signed out (by the button; by the first factor), the factor removed.

const skip = skipReason();
let site: ConsoleSite;
let member: ConsoleUser;

beforeAll(async () => {
  if (skip) return;
  site = await sharedConsole();
  member = await consoleUser(site.env, site.app, 'member');
}, 240_000);
afterAll(async () => {
  await site?.stop();
});

const signIn = (email: string, password: string) => api(site.env.server, 'POST', '/v1/signins', { publishableKey: site.app.publishable_key, body: { email, password } });
const status = (page: import('playwright-core').Page, text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();

describe.skipIf(skip)('the console, your account', () => {
  it('password, an authenticator app, recovery codes, other sessions, removing the factor', { timeout: 300_000 }, async () => {
    const { context, page } = await openSignedIn(site, `${site.env.server.url}/console/`, member.email);
    await view(page, 'Tenants');
    await page.getByRole('link', { name: 'Your account' }).click();
    await view(page, 'Your account');
    // This session and the one the fixture's sign-up opened through the API.
    await page.getByRole('table', { name: 'Where you are signed in: 2' }).waitFor();
    await checkView(page, 'account');

    // The other sessions: the fixture's API session is signed out; this one stays.
    await press(page, 'Sign out other sessions');
    await status(page, 'Signed out 1 other session.');
    await page.getByRole('table', { name: 'Where you are signed in: 1' }).waitFor();
    expect((await api(site.env.server, 'GET', '/v1/me', { publishableKey: site.app.publishable_key, bearer: member.token })).status).toBe(401);

    // The password: the old one then fails, the new one works.
    await fill(page, 'Current password', 'correct horse battery');
    await fill(page, 'New password', 'a newer horse battery');
    await press(page, 'Change password');
    await status(page, 'Password changed.');
    expect((await signIn(member.email, 'correct horse battery')).status).toBe(401);
    const fresh = await signIn(member.email, 'a newer horse battery');
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    await page.getByRole('table', { name: 'Where you are signed in: 1' }).waitFor();
    expect((await api(site.env.server, 'GET', '/v1/me', { publishableKey: site.app.publishable_key, bearer: fresh.body.access_token })).status).toBe(200);

    // An authenticator app: the QR code and the secret, confirmed by its first code; recovery codes shown once.
    await press(page, 'Add an authenticator app');
    await page.getByRole('img', { name: "QR code of the authenticator app's setup link" }).waitFor();
    const secret = await page.getByLabel('Secret key', { exact: true }).inputValue();
    expect(await page.getByLabel('Setup link (otpauth)', { exact: true }).inputValue()).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    await checkView(page, 'account-totp');
    const step = stepAt(new Date());
    await fill(page, 'Code from your authenticator app', totpCode(secret, step));
    await press(page, 'Confirm');
    await status(page, 'Authenticator app added.');
    const first = (await page.getByLabel('Your recovery codes', { exact: true }).inputValue()).split(' ');
    expect(first).toHaveLength(10);
    await page.getByRole('table', { name: 'Your second factors: 1' }).waitFor();
    await page.getByText('10 unused recovery codes left.').waitFor();
    // The first factor signs every other session out (docs/mfa.md): the API sign-in with the new password too.
    expect((await api(site.env.server, 'GET', '/v1/me', { publishableKey: site.app.publishable_key, bearer: fresh.body.access_token })).status).toBe(401);
    await checkView(page, 'account-factor-added');

    // Renewed: a new set, shown once.
    await press(page, 'Renew recovery codes');
    await status(page, 'New recovery codes');
    const renewed = (await page.getByLabel('Your recovery codes', { exact: true }).inputValue()).split(' ');
    expect(renewed).toHaveLength(10);
    expect(renewed.filter((code) => first.includes(code))).toEqual([]);

    // The next sign-in in the console asks for the app's code.
    await press(page, 'Sign out');
    await signInInConsole(page, member.email, 'a newer horse battery');
    await view(page, 'Second factor');
    await fill(page, 'Code from your authenticator app', totpCode(secret, step + 1));
    await press(page, 'Continue');
    await view(page, 'Your account');

    // A recovery code of the first set no longer works; one of the renewed set does.
    await press(page, 'Sign out');
    await signInInConsole(page, member.email, 'a newer horse battery');
    await view(page, 'Second factor');
    await press(page, 'Use a recovery code instead');
    await fill(page, 'Recovery code', first[0]!);
    await press(page, 'Continue');
    await page.getByRole('alert').waitFor();
    await fill(page, 'Recovery code', renewed[0]!);
    await press(page, 'Continue');
    await view(page, 'Your account');
    await page.getByText('9 unused recovery codes left.').waitFor();

    // Removing the factor: a second click; then a password alone signs in.
    await page.getByRole('button', { name: 'Remove Authenticator app' }).click();
    await press(page, 'Yes, remove the authenticator app');
    await status(page, 'Factor removed.');
    await page.getByText('No second factor: a password alone signs you in.').waitFor();
    const plain = await signIn(member.email, 'a newer horse battery');
    expect(plain.status).toBe(200);
    expect(plain.body.mfa_required).toBeUndefined();

    await closeClean(site, context);
  });
});
