import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { manage, type ConsoleUser } from '../helpers/console.js';
import { checkView, fill, press, sharedConsole, view, type ConsoleSite, ownerViewerAndApp, openSignedIn, closeClean } from './console-page.js';
import { api } from '../helpers/fixtures.js';
import { skipReason } from './harness.js';

// docs/console.md, "Users": an app's users in the console, driven as a person does (labels, buttons, links),
// each result read back through the API with the member's own console session and X-App-Id. An owner
// searches, pages by keyset and creates; a viewer sees the same list with no write control.

const skip = skipReason();
let site: ConsoleSite;
let owner: ConsoleUser;
let viewer: ConsoleUser;
let tenantId: string;
let appId: string;
let publishableKey: string;

beforeAll(async () => {
  if (skip) return;
  site = await sharedConsole();
  ({ owner, viewer, tenantId, appId, publishableKey } = await ownerViewerAndApp(site));
  // 27 users: more than one page of 25.
  for (let i = 0; i < 27; i++) {
    const made = await manage(site.env.server, owner.token, 'POST', '/v1/users', { email: `shopper${i}@example.com` }, appId);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  }
}, 240_000);
afterAll(async () => {
  await site?.stop();
});

const usersUrl = () => new URL(`/console/t/${tenantId}/apps/${appId}/users`, site.setupUrl).href;

describe.skipIf(skip)('the console, users of an app', () => {
  it('an owner pages by keyset, searches by email and creates a user; a refusal shows its detail', { timeout: 300_000 }, async () => {
    const { context, page } = await openSignedIn(site, usersUrl(), owner.email);
    await view(page, 'Users');
    await page.getByRole('table', { name: 'Users: 27' }).waitFor();
    const rows = page.getByRole('table').getByRole('row');
    expect(await rows.count()).toBe(26); // the header and 25 users
    expect(await rows.nth(1).textContent()).toContain('shopper26@example.com');
    await checkView(page, 'users');

    // The next page by keyset: its cursor in the address, the 2 oldest users on it.
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.getByRole('table', { name: 'Users: 27 (a later page)' }).waitFor();
    expect(new URL(page.url()).searchParams.get('cursor')).toBeTruthy();
    expect(await rows.count()).toBe(3);
    expect(await page.getByRole('cell', { name: 'shopper0@example.com' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
    await page.getByRole('link', { name: 'First page' }).click();
    await page.getByRole('table', { name: 'Users: 27' }).waitFor();

    // Search: an exact, case-insensitive email, kept in the address.
    await fill(page, 'Search by email', 'SHOPPER3@example.com');
    await press(page, 'Search');
    await page.getByRole('table', { name: 'Users with the email SHOPPER3@example.com: 1' }).waitFor();
    expect(new URL(page.url()).searchParams.get('email')).toBe('SHOPPER3@example.com');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(1).textContent()).toContain('shopper3@example.com');
    await press(page, 'Show all users');
    await page.getByRole('table', { name: 'Users: 27' }).waitFor();

    // Create: the user exists through the API, with a password that signs in.
    const email = uniqueEmail('ada');
    await fill(page, "New user's email", email);
    await fill(page, 'Password (optional)', 'correct horse battery');
    await press(page, 'Create user');
    await page.getByRole('status').filter({ hasText: `Created ${email}.` }).waitFor();
    await page.getByRole('table', { name: 'Users: 28' }).waitFor();
    const found = await manage(site.env.server, owner.token, 'GET', `/v1/users?email=${encodeURIComponent(email)}`, undefined, appId);
    expect(found.body.users.map((u: { email: string }) => u.email)).toEqual([email]);
    const signIn = await api(site.env.server, 'POST', '/v1/signins', { publishableKey, body: { email, password: 'correct horse battery' } });
    expect(signIn.status, JSON.stringify(signIn.body)).toBe(200);

    // The same email again: the server's 409 detail, in the page.
    await fill(page, "New user's email", email);
    await press(page, 'Create user');
    const problem = page.getByRole('alert');
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/A user with this email already exists\.Error code: \w+ \(HTTP 409\)/);
    expect((await manage(site.env.server, owner.token, 'GET', '/v1/users', undefined, appId)).body.total).toBe(28);

    await closeClean(site, context);
  });

  it('a viewer sees the users and no write control', { timeout: 180_000 }, async () => {
    const { context, page } = await openSignedIn(site, usersUrl(), viewer.email);
    await view(page, 'Users');
    await page.getByRole('table', { name: /^Users: \d+$/ }).waitFor();
    expect(await page.getByRole('cell', { name: 'shopper26@example.com' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Create user' }).count()).toBe(0);
    expect(await page.getByLabel("New user's email").count()).toBe(0);
    // The search reads, so it stays.
    expect(await page.getByRole('button', { name: 'Search' }).count()).toBe(1);
    await checkView(page, 'users-viewer');
    await context.close();
  });
});
