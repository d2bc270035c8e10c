import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleUser, type ConsoleUser } from '../helpers/console.js';
import { claimsOf } from '../helpers/mfa.js';
import { checkView, closeClean, fill, press, sharedConsole, signInInConsole, view, type ConsoleSite } from './console-page.js';
import { skipReason } from './harness.js';

// docs/console.md, "Passkeys": the console app's relying party is PUBLIC_BASE_URL's host, so a console user
// adds a passkey on Your account, signs in with it alone (no email typed: a discoverable credential, aal2),
// uses it as the second factor after a password, and removes it, after which it signs nobody in. Chromium's
// virtual authenticator (CDP WebAuthn: CTAP2, internal, resident keys, user verification) is the device.
// PUBLIC_BASE_URL is http://localhost:{port}: WebAuthn takes a domain, not an IP address, as the id.

const skip = skipReason();
let site: ConsoleSite;
let member: ConsoleUser;

beforeAll(async () => {
  if (skip) return;
  site = await sharedConsole({ PUBLIC_BASE_URL: 'http://localhost:{port}' });
  member = await consoleUser(site.env, site.app, 'passkey');
}, 240_000);
afterAll(async () => {
  await site?.stop();
});

const status = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();

/** A browser profile with a virtual platform authenticator; answers the page and the authenticator's credentials. */
async function device(context: BrowserContext): Promise<{ page: Page; credentials: () => Promise<{ rpId?: string; isResidentCredential: boolean }[]> }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { page, credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
}

/** The claims of the access token the page sent last (its memory is the only place it is kept). */
function lastAccessClaims(): Record<string, any> {
  const bearer = site.requests.map((r) => /"authorization":"Bearer ([^"]+)"/.exec(r)?.[1]).filter((t): t is string => t !== undefined);
  expect(bearer.length).toBeGreaterThan(0);
  return claimsOf(bearer.at(-1)!);
}

describe.skipIf(skip)('the console, passkeys', () => {
  it('add a passkey on Your account, sign in with it alone (aal2) and as the second factor, remove it', { timeout: 300_000 }, async () => {
    const origin = new URL(site.env.server.env.PUBLIC_BASE_URL!).origin;
    expect(origin).toBe(`http://localhost:${site.env.server.port}`);
    const context = await site.context();
    const { page, credentials } = await device(context);
    await page.goto(`${origin}/console/account`);
    await signInInConsole(page, member.email);
    await view(page, 'Your account');
    await page.getByText('No second factor: a password alone signs you in.').waitFor();

    // Added with a name: the device now holds one discoverable credential for PUBLIC_BASE_URL's host, the list
    // shows it, and the first factor's recovery codes are shown once.
    await fill(page, 'Name of the passkey (optional)', 'laptop');
    await press(page, 'Add a passkey');
    await status(page, 'Passkey added. Your recovery codes:');
    expect((await page.getByLabel('Your recovery codes', { exact: true }).inputValue()).split(' ')).toHaveLength(10);
    await page.getByRole('table', { name: 'Your second factors: 1' }).getByRole('cell', { name: 'Passkey “laptop”', exact: true }).waitFor();
    expect(await credentials()).toEqual([expect.objectContaining({ rpId: 'localhost', isResidentCredential: true })]);
    expect(lastAccessClaims()).toMatchObject({ sub: member.userId, aal: 'aal2', amr: ['pwd', 'webauthn'] });
    await checkView(page, 'account-passkey');

    // Signed out, then in with the passkey only: no email typed, signed in at aal2 by the passkey alone.
    await press(page, 'Sign out');
    await view(page, 'Sign in to the console');
    await checkView(page, 'sign-in', { docs: false });
    await press(page, 'Sign in with a passkey');
    await view(page, 'Your account');
    await page.getByRole('table', { name: 'Your second factors: 1' }).waitFor();
    expect(lastAccessClaims()).toMatchObject({ sub: member.userId, aal: 'aal2', amr: ['webauthn'] });
    // aal2 is what renewing the recovery codes asks for.
    await press(page, 'Renew recovery codes');
    await status(page, 'New recovery codes');

    // A password sign-in now asks for the second factor; the passkey answers it.
    await press(page, 'Sign out');
    await signInInConsole(page, member.email);
    await view(page, 'Second factor');
    // A passkey-only account: the passkey, or a recovery code; no authenticator code is asked for.
    await page.getByLabel('Recovery code', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Use a recovery code instead' }).count()).toBe(0);
    await checkView(page, 'second-factor-passkey', { docs: false });
    await press(page, 'Use a passkey');
    await view(page, 'Your account');
    await page.getByRole('table', { name: 'Your second factors: 1' }).waitFor();
    expect(lastAccessClaims()).toMatchObject({ sub: member.userId, aal: 'aal2', amr: ['pwd', 'webauthn'] });

    // Removed (a second click): a password alone signs in, and the passkey the device still holds signs nobody in.
    await page.getByRole('button', { name: 'Remove Passkey “laptop”' }).click();
    await press(page, 'Yes, remove the passkey');
    await status(page, 'Factor removed.');
    await page.getByText('No second factor: a password alone signs you in.').waitFor();
    await press(page, 'Sign out');
    await view(page, 'Sign in to the console');
    await press(page, 'Sign in with a passkey');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/invalid_passkey \(HTTP 401\)/);
    expect(await credentials()).toHaveLength(1);
    await signInInConsole(page, member.email);
    await view(page, 'Your account');
    await page.getByText('No second factor: a password alone signs you in.').waitFor();
    expect(lastAccessClaims()).toMatchObject({ sub: member.userId, aal: 'aal1', amr: ['pwd'] });

    await closeClean(site, context);
  });
});
