import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { cliJson } from '../helpers/fixtures.js';
import { codeAt, userWithTotp } from '../helpers/mfa.js';
import { checkView, expectNoSecretsSent, fill, press, signInInConsole, signUpInConsole, startConsole, storedByPage, view, type ConsoleSite } from './console-page.js';
import { skipReason } from './harness.js';

// docs/console.md, as a new operator and a new tenant live it: from the setup link `serve` printed on an empty
// database to the operator (sign-up in the page, token consumed), a tenant, an app with its settings and keys
// (the new secret shown once), an invited viewer who sees no write control, an API token; sign out and in;
// and a second factor by TOTP and by recovery code. axe, the keyboard and 320 px on each view.

const skip = skipReason();
let site: ConsoleSite;
let context: BrowserContext;
let page: Page;
let tenantId: string;
const operator = uniqueEmail('operator');

beforeAll(async () => {
  if (skip) return;
  site = await startConsole();
  context = await site.context();
  page = await context.newPage();
}, 180_000);
afterAll(async () => {
  await site?.stop();
});

/** Waits for the one <ShownOnce> field labelled `label` and answers its value. */
async function shownOnce(label: string): Promise<string> {
  const field = page.getByLabel(label, { exact: true });
  await field.waitFor();
  await page.getByText('Shown once: store it now.').first().waitFor();
  return field.inputValue();
}

describe.skipIf(skip)('the console, first run', () => {
  it('the setup link: the operator signs up, the token is consumed, a tenant is made and renamed; sign out and in again', { timeout: 300_000 }, async () => {
    await page.goto(site.setupUrl);
    await view(page, 'Create your console account');
    await checkView(page, 'setup');
    await signUpInConsole(site, page, operator);
    await view(page, 'Tenants');
    await page.getByText('You are the operator now').waitFor();
    const operators = await cliJson<{ operators: { email: string }[] }>(site.env.server, ['operator', 'list']);
    expect(operators.operators.map((o) => o.email)).toEqual([operator]);
    await checkView(page, 'tenants');

    await fill(page, 'Tenant name', 'Acme');
    await press(page, 'Create tenant');
    await view(page, 'Apps');
    tenantId = await page.getByLabel('Tenant', { exact: true }).inputValue();
    expect(tenantId).not.toBe('');
    await page.getByText('This tenant has no app yet.').waitFor();
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await view(page, 'Tenant settings');
    await checkView(page, 'tenant-settings');
    await fill(page, 'Tenant name', 'Acme Inc');
    await press(page, 'Save name');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await page.getByRole('option', { name: 'Acme Inc (owner)' }).count()).toBe(1);
    // A refusal shows the server's detail and code: an empty name is 400.
    await fill(page, 'Tenant name', ' ');
    await press(page, 'Save name');
    await page.getByRole('alert').filter({ hasText: 'Error code: validation_failed (HTTP 400)' }).waitFor();

    await page.getByRole('link', { name: 'Tenants', exact: true }).click();
    await view(page, 'Tenants');
    await press(page, 'Sign out');
    await signInInConsole(page, operator);
    await view(page, 'Tenants');
    await page.getByRole('link', { name: 'Acme Inc' }).click();
    await view(page, 'Apps');
  });

  it('an app: created with its secret shown once, settings explained and saved, the secret rotated (shown once), the signing key rotated, another app deleted', { timeout: 300_000 }, async () => {
    await checkView(page, 'apps-empty');
    await fill(page, 'App name', 'Shop');
    await fill(page, 'Allowed origins (optional)', 'http://127.0.0.1:3000');
    await press(page, 'Create app');
    const secret = await shownOnce('Secret key (for your servers)');
    expect(secret).toMatch(/^sk_/);
    await checkView(page, 'app-created');
    await page.getByRole('link', { name: 'Shop', exact: true }).first().click();
    await view(page, 'App settings');
    const appId = page.url().split('/').pop()!;
    await checkView(page, 'app-settings');
    await fill(page, 'Proof-of-work difficulty', '8');
    await page.getByLabel('Users may delete their account', { exact: true }).uncheck();
    await press(page, 'Save settings');
    await page.getByRole('status').filter({ hasText: 'Saved: hashcash_difficulty, self_delete.' }).waitFor();
    expect(await cliJson(site.env.server, ['app', 'show', appId])).toMatchObject({ hashcash_difficulty: 8, self_delete: false, allowed_origins: ['http://127.0.0.1:3000'] });
    await fill(page, 'Proof-of-work difficulty', '99');
    await press(page, 'Save settings');
    await page.getByRole('alert').filter({ hasText: 'Error code: validation_failed' }).waitFor();

    await page.getByRole('link', { name: /^Keys/ }).click();
    await view(page, 'App keys');
    await checkView(page, 'app-keys');
    await press(page, 'Rotate the secret key');
    const rotated = await shownOnce('New secret key');
    expect(rotated).toMatch(/^sk_/);
    expect(rotated).not.toBe(secret);
    await page.getByText('The old key no longer works.').waitFor();
    const asKey = (key: string) => fetch(`${site.env.server.url}/v1/users?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    expect((await asKey(secret)).status).toBe(401);
    expect((await asKey(rotated)).status).toBe(200);
    await press(page, 'Rotate the signing key');
    await page.getByRole('status').filter({ hasText: /^New signing key: / }).waitFor();
    // Left, the secret is gone from the page.
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    await view(page, 'Apps');
    expect(await page.content()).not.toContain(rotated);

    await fill(page, 'App name', 'Temp');
    await press(page, 'Create app');
    await shownOnce('Secret key (for your servers)');
    await page.getByRole('link', { name: 'Temp', exact: true }).first().click();
    await view(page, 'App settings');
    await checkView(page, 'app-delete');
    const remove = page.getByRole('button', { name: 'Delete this app', exact: true });
    expect(await remove.isDisabled()).toBe(true);
    await fill(page, 'Type Temp to confirm', 'Temp');
    await remove.click();
    await view(page, 'Apps');
    await page.getByRole('link', { name: 'Shop', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Temp', exact: true }).count()).toBe(0);
  });

  it('an API token: shown once, it calls the Management API, revoked it is refused', { timeout: 180_000 }, async () => {
    await page.getByRole('link', { name: 'API tokens', exact: true }).click();
    await view(page, 'API tokens');
    await checkView(page, 'tokens');
    await fill(page, 'Token name', 'ci');
    await press(page, 'Create token');
    const token = await shownOnce('Token ci');
    expect(token).toMatch(/^tk_/);
    const asToken = () => fetch(`${site.env.server.url}/v1/tenants`, { headers: { authorization: `Bearer ${token}` } });
    expect((await asToken()).status).toBe(200);
    await press(page, 'Revoke ci');
    await page.getByText('This tenant has no API token.').waitFor();
    expect((await asToken()).status).toBe(401);
  });

  it('a viewer invited by email accepts from the link, signs up there, and sees every page without a write control', { timeout: 300_000 }, async () => {
    const viewer = uniqueEmail('viewer');
    await page.getByRole('link', { name: 'Members', exact: true }).click();
    await view(page, 'Members and invitations');
    await checkView(page, 'members');
    await fill(page, 'Email to invite', viewer);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await press(page, 'Send invitation');
    await page.getByRole('status').filter({ hasText: `Invitation emailed to ${viewer} (viewer)` }).waitFor();
    await page.getByRole('cell', { name: viewer, exact: true }).waitFor();

    const mail = await site.env.sink.waitFor(viewer);
    const link = /https?:\/\/\S+\/console\/accept\?token=\S+/.exec(mail.text)![0];
    const theirs = await site.context();
    const their = await theirs.newPage();
    await their.goto(link);
    await view(their, 'Create your console account');
    await signUpInConsole(site, their, viewer, 1);
    await view(their, 'Apps');
    await their.getByText('your role: viewer').waitFor();
    const noWriteControl = async (name: string) => {
      await checkView(their, `viewer-${name}`);
      expect(await their.locator('main').locator('button, input, select, textarea').count(), `write controls on ${name}`).toBe(0);
    };
    await their.getByRole('link', { name: 'Shop', exact: true }).waitFor();
    await noWriteControl('apps');
    await their.getByRole('link', { name: 'Shop', exact: true }).click();
    await view(their, 'App settings');
    await their.getByText('Proof-of-work difficulty').waitFor();
    await noWriteControl('app-settings');
    await their.getByRole('link', { name: /^Keys/ }).click();
    await view(their, 'App keys');
    await noWriteControl('app-keys');
    for (const [nav, title] of [['Members', 'Members and invitations'], ['API tokens', 'API tokens'], ['Settings', 'Tenant settings']] as const) {
      await their.getByRole('link', { name: nav, exact: true }).click();
      await view(their, title);
      await their.locator('main p, main table').first().waitFor();
      await noWriteControl(nav.toLowerCase().replace(' ', '-'));
    }
    // The operator's page lists them as a member now (a new load: signed in again, on the same address).
    await page.goto(`${site.env.server.url}/console/t/${tenantId}/members`);
    await signInInConsole(page, operator);
    await view(page, 'Members and invitations');
    await page.getByRole('cell', { name: viewer, exact: true }).waitFor();
    expect(await page.getByText('No pending invitation.').count()).toBe(1);
    await theirs.close();
  });

  it('an access token past its lifetime is refreshed before the next call: the page goes on working', { timeout: 120_000 }, async () => {
    const theirs = await site.context();
    await theirs.clock.install();
    const their = await theirs.newPage();
    await their.goto(`${site.env.server.url}/console/t/${tenantId}/members`);
    await signInInConsole(their, operator);
    await view(their, 'Members and invitations');
    const refreshes = () => site.requests.filter((r) => r.startsWith('POST ') && r.includes('/v1/tokens/session')).length;
    const before = refreshes();
    await theirs.clock.fastForward('02:00:00');
    await their.getByRole('link', { name: 'API tokens', exact: true }).click();
    await view(their, 'API tokens');
    await their.getByText('This tenant has no API token.').waitFor();
    expect(refreshes()).toBeGreaterThan(before);
    await theirs.close();
  });

  it('the session was Bearer tokens in memory only: no cookie, no web storage; a reload forgets it; no request carried a secret', { timeout: 60_000 }, async () => {
    expect(await storedByPage(context, page)).toEqual({ cookies: 0, local: [], session: [] });
    await page.reload();
    await view(page, 'Sign in to the console');
    expect(site.cspViolations).toEqual([]);
    expectNoSecretsSent(site);
  });

  it('an account with a second factor: the TOTP code, or a recovery code, completes the sign-in', { timeout: 180_000 }, async () => {
    const user = await userWithTotp(site.env, site.app);
    const theirs = await site.context();
    const their = await theirs.newPage();
    await their.goto(`${site.env.server.url}/console/`);
    await signInInConsole(their, user.email);
    await view(their, 'Second factor');
    await checkView(their, 'second-factor');
    await fill(their, 'Code from your authenticator app', '000000');
    await press(their, 'Continue');
    await their.getByRole('alert').waitFor();
    await fill(their, 'Code from your authenticator app', codeAt(user.secret, 1));
    await press(their, 'Continue');
    await view(their, 'Tenants');
    await their.getByText('You belong to no tenant yet').waitFor();
    await press(their, 'Sign out');
    await signInInConsole(their, user.email);
    await view(their, 'Second factor');
    await press(their, 'Use a recovery code instead');
    await fill(their, 'Recovery code', user.recoveryCodes[0]!);
    await press(their, 'Continue');
    await view(their, 'Tenants');
    expect(site.cspViolations).toEqual([]);
    expectNoSecretsSent(site);
    await theirs.close();
  });
});
