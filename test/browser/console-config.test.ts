import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { addMember, ADMIN_TOKEN, consoleUser, manage, tenantOwnedBy, type ConsoleUser } from '../helpers/console.js';
import { queryDatabase } from '../helpers/db.js';
import { checkView, expectNoSecretsSent, fill, press, signInInConsole, sharedConsole, view, type ConsoleSite, openSignedIn } from './console-page.js';
import { skipReason } from './harness.js';

// docs/console.md, "Sign-in providers", "Email templates", "Billing" and what the caller may do: an owner
// configures a GitHub and an OpenID Connect provider (the secrets go in and never come back in any answer
// the page receives), edits, previews and resets an email template, reads the balance and ledger the API
// reports; a non-operator owner is offered no new tenant and no operator field; the operator is; a viewer
// reads with no write control. Results are read back through the API with the member's own session.

const skip = skipReason();
let site: ConsoleSite;
let owner: ConsoleUser;
let viewer: ConsoleUser;
let operator: ConsoleUser;
let tenantId: string;
let appId: string;

const GITHUB_SECRET = 'gh-secret-4f1c9a7e2b';
const OIDC_SECRET = 'acme-secret-8d3e6b0c5a';
/** An HTML part with a styled paragraph, a <style> rule and a script (which the preview must not run). */
const EMAIL_HTML =
  '<!doctype html><html lang="en"><head><style>.welcome { font-weight: 700 }</style></head><body style="font-family: sans-serif"><p class="welcome" style="color: rgb(0, 90, 40)">Welcome to {{app_name}}</p><p>Your code is {{code}}.</p><script>window.previewRan = 1</script></body></html>';

type Account = typeof import('../../src/services/billing/account.js');
async function credit(cents: number, note: string): Promise<void> {
  const account = (await import(/* @vite-ignore */ new URL('../../dist/src/services/billing/account.js', import.meta.url).href)) as Account;
  await account.adjustBalance(await site.env.server.deps(), tenantId, cents, note);
}

beforeAll(async () => {
  if (skip) return;
  site = await sharedConsole();
  owner = await consoleUser(site.env, site.app, 'owner');
  viewer = await consoleUser(site.env, site.app, 'viewer');
  operator = await consoleUser(site.env, site.app, 'operator');
  expect((await site.env.server.cli(['operator', 'add', '--email', operator.email])).code).toBe(0);
  tenantId = await tenantOwnedBy(site.env, owner, 'Acme');
  await addMember(site.env, tenantId, viewer, 'viewer');
  const app = await manage(site.env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Shop' });
  expect(app.status, JSON.stringify(app.body)).toBe(201);
  appId = app.body.app_id;
  await credit(2000, 'Welcome credit');
  await credit(-350, 'Support plan');
  await credit(125, 'Refund');
}, 240_000);
afterAll(async () => {
  await site?.stop();
});

const at = (path: string) => new URL(`/console${path}`, site.setupUrl).href;
const appPath = (rest = '') => `/t/${tenantId}/apps/${appId}${rest}`;

/** Every answer of the API the page received, as text (for the no-secret-back check). */
function answersOf(context: BrowserContext): string[] {
  const answers: string[] = [];
  context.on('response', async (response) => {
    if (new URL(response.url()).pathname.startsWith('/v1/')) answers.push(`${response.url()} ${await response.text().catch(() => '')}`);
  });
  return answers;
}

const providersOf = async (credential: string) => (await manage(site.env.server, credential, 'GET', '/v1/oauth/providers', undefined, appId)).body.providers as { provider: string; client_id: string; client_secret: string; scopes: string[] }[];
const status = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();

describe.skipIf(skip)('the console, an app’s configuration and the tenant’s billing', () => {
  it('an owner adds, edits and deletes providers, edits, previews and resets a template, reads billing; no tenant creation, no operator field', { timeout: 300_000 }, async () => {
    const context = await site.context();
    const answers = answersOf(context);
    const page = await context.newPage();
    await page.goto(at(appPath('/providers')));
    await signInInConsole(page, owner.email);
    await view(page, 'Sign-in providers');
    await page.getByText('No provider is configured for this app.').waitFor();

    // GitHub: the default kind; the redirect URI to register is offered with a copy button.
    expect(await page.getByLabel('Redirect URI', { exact: true }).inputValue()).toBe(new URL('/v1/oauth/github/callback', site.setupUrl).href);
    await fill(page, 'Client ID', 'gh-client-1');
    await fill(page, 'Client secret', GITHUB_SECRET);
    await press(page, 'Add provider');
    await status(page, 'Saved github.');
    await page.getByRole('table', { name: 'Sign-in providers: 1' }).waitFor();

    // An OpenID Connect provider by issuer: a plain-http issuer is refused with the server's detail and code.
    await page.getByLabel('Provider', { exact: true }).selectOption('oidc');
    await fill(page, 'Name (after oidc-)', 'acme');
    await fill(page, 'Issuer URL', 'http://idp.example.com');
    await fill(page, 'Display name', 'Acme SSO');
    await fill(page, 'Client ID', 'acme-client');
    await fill(page, 'Client secret', OIDC_SECRET);
    expect(await page.getByLabel('Redirect URI', { exact: true }).inputValue()).toBe(new URL('/v1/oauth/oidc-acme/callback', site.setupUrl).href);
    await press(page, 'Add provider');
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/Error code: invalid_issuer \(HTTP 400\)/);
    await fill(page, 'Issuer URL', 'https://idp.example.com');
    await press(page, 'Add provider');
    await status(page, 'Saved oidc-acme.');
    await page.getByRole('table', { name: 'Sign-in providers: 2' }).waitFor();
    expect(await providersOf(owner.token)).toEqual([
      expect.objectContaining({ provider: 'github', client_id: 'gh-client-1', client_secret: '****' }),
      expect.objectContaining({ provider: 'oidc-acme', client_id: 'acme-client', client_secret: '****', issuer: 'https://idp.example.com', display_name: 'Acme SSO' }),
    ]);
    expect(await page.getByLabel('Client secret', { exact: true }).inputValue(), 'the form forgets a saved secret').toBe('');
    await checkView(page, 'providers');

    // Edit: the client id is filled in, the secret is not, and need not be retyped: left empty, the PUT omits
    // it and the API keeps the stored one (the sealed value in the database is the same after the save).
    const sealed = async () => (await queryDatabase(site.env.server.databaseUrl, `select secret_sealed from oauth_providers where app_id = '${appId}' and provider = 'github'`))[0]!.secret_sealed;
    const sealedBefore = await sealed();
    await press(page, 'Edit github');
    await page.getByRole('heading', { name: 'Edit github' }).waitFor();
    expect(await page.getByLabel('Client ID', { exact: true }).inputValue()).toBe('gh-client-1');
    const secretField = page.getByLabel('Client secret', { exact: true });
    expect(await secretField.inputValue()).toBe('');
    expect(await secretField.getAttribute('required')).toBeNull();
    await expect.poll(() => secretField.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby')!)?.textContent)).toMatch(/^Leave empty to keep the current secret/);
    await fill(page, 'Client ID', 'gh-client-2');
    await fill(page, 'Scopes', 'read:user read:org');
    const sent = page.waitForRequest((r) => r.method() === 'PUT' && r.url().endsWith('/v1/oauth/providers/github'));
    await press(page, 'Save github');
    await status(page, 'Saved github.');
    expect(JSON.parse((await sent).postData()!)).toEqual({ client_id: 'gh-client-2', scopes: ['read:user', 'read:org'] });
    const github = (await providersOf(owner.token)).find((p) => p.provider === 'github')!;
    expect(github).toMatchObject({ client_id: 'gh-client-2', client_secret: '****' });
    expect(github.scopes).toEqual(expect.arrayContaining(['read:user', 'read:org', 'user:email']));
    expect(await sealed(), 'the stored secret kept').toBe(sealedBefore);

    // Delete, behind the provider's name typed.
    await press(page, 'Delete oidc-acme');
    const confirm = page.getByRole('button', { name: 'Delete provider oidc-acme' });
    expect(await confirm.isDisabled()).toBe(true);
    await fill(page, 'Type oidc-acme to confirm', 'oidc-acme');
    await confirm.click();
    await status(page, 'Deleted oidc-acme.');
    await page.getByRole('table', { name: 'Sign-in providers: 1' }).waitFor();
    expect((await providersOf(owner.token)).map((p) => p.provider)).toEqual(['github']);

    // Email templates: edit a subject, preview the draft, keep it, reset it.
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Email templates' }).click();
    await view(page, 'Email templates');
    await page.getByRole('link', { name: 'verify_email', exact: true }).click();
    await page.getByRole('heading', { name: 'verify_email (en)' }).waitFor();
    await page.getByText('The shipped template (the app has none of its own here).').waitFor();
    // The HTML part is drawn (a styled paragraph, a <style> rule) under the console's CSP; its script never runs.
    await fill(page, 'Subject', 'Confirm your Shop address');
    await fill(page, 'HTML part', EMAIL_HTML);
    await press(page, 'Preview');
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByText('Subject: Confirm your Shop address').waitFor();
    expect(await preview.locator('pre').first().textContent(), 'the text part, sample values filled in').not.toContain('{{');
    const drawn = preview.getByRole('region', { name: 'The HTML part, drawn' });
    await drawn.getByText(/^Your code is \d{6}\.$/).waitFor();
    const styleOf = (text: string) => drawn.getByText(text).evaluate((el) => ({ color: getComputedStyle(el).color, weight: getComputedStyle(el).fontWeight }));
    expect(await styleOf('Welcome to Shop')).toEqual({ color: 'rgb(0, 90, 40)', weight: '700' });
    expect(await page.evaluate(() => (window as unknown as { previewRan?: number }).previewRan), 'the email script ran').toBeUndefined();
    expect(await drawn.locator('script').count()).toBe(0);
    expect(await preview.getByText(/Left out: elements that run, embed or submit \(script\)/).count()).toBe(1);
    await preview.getByText('Its source, with the sample values filled in').click();
    expect(await preview.locator('details pre').textContent(), 'the source kept').toContain('<script>');
    expect(site.cspViolations, 'the drawing broke no CSP rule').toEqual([]);
    await checkView(page, 'email');
    await press(page, 'Save template');
    await status(page, 'Saved.');
    const kept = await manage(site.env.server, owner.token, 'GET', `/v1/apps/${appId}/email_templates/verify_email?locale=en`);
    expect(kept.body).toMatchObject({ source: 'app', subject: 'Confirm your Shop address' });
    await page.getByRole('cell', { name: 'en', exact: true }).waitFor();
    await press(page, 'Reset to the shipped template');
    await status(page, /^Reset/);
    const reset = await manage(site.env.server, owner.token, 'GET', `/v1/apps/${appId}/email_templates/verify_email?locale=en`);
    expect(reset.body.source).toBe('shipped');
    await page.getByText('The shipped template (the app has none of its own here).').waitFor();
    expect(await page.getByLabel('Subject', { exact: true }).inputValue()).toBe(reset.body.subject);

    // Billing: the balance and the ledger the API reports.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Billing' }).click();
    await view(page, 'Billing');
    const billing = (await manage(site.env.server, owner.token, 'GET', '/v1/billing', undefined, appId)).body;
    expect(billing.balance_usd).toBe(17.75);
    await page.getByRole('region', { name: 'Balance' }).getByText('17.75 USD').waitFor();
    const ledger = (await manage(site.env.server, owner.token, 'GET', '/v1/billing/transactions', undefined, appId)).body.transactions as { description: string }[];
    const rows = page.getByRole('table', { name: 'Transactions, newest first' }).getByRole('row');
    await rows.nth(3).waitFor();
    expect(await rows.count()).toBe(ledger.length + 1);
    for (const [i, row] of ledger.entries()) expect(await rows.nth(i + 1).textContent()).toContain(row.description);
    expect(await rows.nth(1).textContent()).toContain('1.25 USD17.75 USD');
    await page.getByRole('button', { name: 'Start the top-up' }).waitFor();
    await checkView(page, 'billing');

    // Not the operator and CONSOLE_OPEN_SIGNUP off: no new tenant; the app's settings without domain fields.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Tenants' }).click();
    await view(page, 'Tenants');
    await page.getByRole('link', { name: 'Acme' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create tenant' }).count()).toBe(0);
    expect(await page.getByLabel('Tenant name').count()).toBe(0);
    await page.goto(at(appPath()));
    await signInInConsole(page, owner.email);
    await view(page, 'App settings');
    await page.getByRole('button', { name: 'Save settings' }).waitFor();
    expect(await page.getByLabel('Verified domain').count()).toBe(0);
    expect(await page.getByLabel('Cookie domain').count()).toBe(0);

    const leaked = answers.filter((a) => a.includes(GITHUB_SECRET) || a.includes(OIDC_SECRET));
    expect(answers.length).toBeGreaterThan(10);
    expect(leaked, 'a provider secret in an answer the page received').toEqual([]);
    expect(site.cspViolations).toEqual([]);
    await context.close();
  });

  it('a viewer reads providers, templates (and previews them) and billing with no write control', { timeout: 180_000 }, async () => {
    const { context, page } = await openSignedIn(site, at(appPath('/providers')), viewer.email);
    await view(page, 'Sign-in providers');
    await page.getByRole('table', { name: 'Sign-in providers: 1' }).waitFor();
    const main = page.getByRole('main');
    expect(await main.getByRole('button').count()).toBe(0);
    expect(await main.getByRole('textbox').count()).toBe(0);
    expect(await main.getByRole('combobox').count()).toBe(0);
    await checkView(page, 'providers-viewer');

    await page.goto(at(appPath('/email?kind=verify_email&locale=en')));
    await signInInConsole(page, viewer.email);
    await view(page, 'Email templates');
    await page.getByRole('heading', { name: 'verify_email (en)' }).waitFor();
    expect(await main.getByRole('textbox').count()).toBe(0);
    expect(await main.getByRole('button', { name: 'Save template' }).count()).toBe(0);
    await press(page, 'Preview');
    await page.getByRole('region', { name: 'Preview' }).getByText(/^Subject: /).waitFor();
    expect(await main.getByRole('button').allTextContents()).toEqual(['Preview']);
    await checkView(page, 'email-viewer');

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Billing' }).click();
    await view(page, 'Billing');
    await page.getByRole('region', { name: 'Balance' }).getByText('17.75 USD').waitFor();
    await page.getByRole('table', { name: 'Transactions, newest first' }).waitFor();
    expect(await main.getByRole('button').count()).toBe(0);
    expect(await main.getByRole('textbox').count()).toBe(0);
    await checkView(page, 'billing-viewer');
    await context.close();
  });

  it('the operator is offered a new tenant and the domain fields', { timeout: 180_000 }, async () => {
    const { context, page } = await openSignedIn(site, at(appPath()), operator.email);
    await view(page, 'App settings');
    await page.getByLabel('Verified domain').waitFor();
    await fill(page, 'Cookie domain', '');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Tenants' }).click();
    await view(page, 'Tenants');
    await page.getByRole('button', { name: 'Create tenant' }).waitFor();
    expect(await page.getByLabel('Tenant name').count()).toBe(1);
    expect((await manage(site.env.server, operator.token, 'GET', '/v1/console/session')).body).toMatchObject({ operator: true, tenant_creation: true });
    expect(site.cspViolations).toEqual([]);
    expectNoSecretsSent(site);
    expect(site.requests.some((r) => r.includes(ADMIN_TOKEN))).toBe(false);
    await context.close();
  });
});
