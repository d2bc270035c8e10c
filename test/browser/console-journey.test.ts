import { hash as bcryptHash } from '@node-rs/bcrypt';
import type { BrowserContext, Page } from 'playwright-core';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { manage } from '../helpers/console.js';
import { TEST_DB } from '../helpers/db.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { checkView, expectNoSecretsSent, fill, press, signUpInConsole, startConsole, view, type ConsoleSite } from './console-page.js';
import { skipReason } from './harness.js';

// docs/console.md, "The journey": a new tenant's whole way through the console, page to page, on an empty
// database's server, with no API shortcut for what a page can do. From the setup link `serve` printed the
// operator signs up and creates a tenant, of which they are the owner (the invitation of another owner is the
// same round trip as the viewer's below, and console-first-run covers it). As the owner, in the page only:
// an app, a GitHub provider, a webhook endpoint (a local receiver gets a real, signed delivery), a Supabase CSV
// imported, a viewer invited (who accepts from the email's link in a second browser), a user searched, opened,
// their events read, banned and deleted, a table and a row, a file uploaded to a bucket. Then the viewer walks
// the same pages and finds no write control. Checks through the API only read what the page wrote.
// Runs on both databases' servers (test/suite.mjs BOTH_DATABASES): SQLite in its pass, PostgreSQL in its.

const skip = skipReason({ bothDatabases: true });
let site: ConsoleSite;
let receiver: Receiver;
let owner: { context: BrowserContext; page: Page };
let viewer: { context: BrowserContext; page: Page };
let webhookSecret: string;
let tenantId: string;
let appId: string;
const operator = uniqueEmail('operator');
const viewerEmail = uniqueEmail('viewer');
const [ada, bob] = [uniqueEmail('ada'), uniqueEmail('bob')];

beforeAll(async () => {
  if (skip) return;
  receiver = await startReceiver();
  site = await startConsole({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const context = await site.context();
  owner = { context, page: await context.newPage() };
  context.on('request', (request) => {
    const bearer = /^Bearer (.+)$/.exec(request.headers().authorization ?? '')?.[1];
    if (bearer) ownerBearer = bearer;
  });
}, 180_000);
afterAll(async () => {
  await site?.stop();
  await receiver?.close();
});

/** The owner's console token, as their page holds it (from its latest request), for reading results back. */
let ownerBearer: string | undefined;
function ownerToken(): string {
  if (!ownerBearer) throw new Error("the owner's page sent no Bearer token yet");
  return ownerBearer;
}
const read = async (path: string) => (await manage(site.env.server, ownerToken(), 'GET', path, undefined, appId)).body;
const status = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).first().waitFor();
const appNav = (page: Page, name: string) => page.getByRole('navigation', { name: 'App' }).getByRole('link', { name, exact: true }).click();

/** Supabase's auth.users as `\copy ... with csv header` writes it: two users with bcrypt passwords. */
async function supabaseCsv(): Promise<string> {
  const header = 'instance_id,id,aud,role,email,encrypted_password,email_confirmed_at,invited_at,confirmation_token,recovery_token,last_sign_in_at,raw_app_meta_data,raw_user_meta_data,is_super_admin,created_at,updated_at,phone,deleted_at,is_anonymous';
  const row = (n: number, email: string, hash: string) =>
    `00000000-0000-0000-0000-000000000000,7c1d2e3f-0000-4000-8000-00000000000${n},authenticated,authenticated,${email},${hash},2024-01-02 03:05:00+00,,,,,"{""provider"":""email""}","{}",,2024-01-02 03:04:05.123456+00,2024-01-02 03:04:05.123456+00,,,false`;
  return [header, row(1, ada, await bcryptHash('ada password', 4)), row(2, bob, await bcryptHash('bob password', 4))].join('\n') + '\n';
}

describe.skipIf(skip)(`the console's whole journey, on a ${TEST_DB} server`, () => {
  it('the operator signs up from the setup link, creates a tenant and an app, a GitHub provider and a webhook endpoint', { timeout: 180_000 }, async () => {
    const { page } = owner;
    await page.goto(site.setupUrl);
    await view(page, 'Create your console account');
    await signUpInConsole(site, page, operator);
    await view(page, 'Tenants');
    await page.getByText('You are the operator now').waitFor();
    await checkView(page, 'journey-tenants', { docs: false });
    await fill(page, 'Tenant name', 'Acme');
    await press(page, 'Create tenant');
    await view(page, 'Apps');
    tenantId = await page.getByLabel('Tenant', { exact: true }).inputValue();
    expect(await page.getByRole('option', { name: 'Acme (owner)' }).count()).toBe(1);

    await fill(page, 'App name', 'Shop');
    await press(page, 'Create app');
    expect(await page.getByLabel('Secret key (for your servers)', { exact: true }).inputValue()).toMatch(/^sk_/);
    await checkView(page, 'journey-apps', { docs: false });
    await page.getByRole('link', { name: 'Shop', exact: true }).first().click();
    await view(page, 'App settings');
    appId = page.url().split('/').pop()!;
    await checkView(page, 'journey-app-settings', { docs: false });

    await appNav(page, 'Sign-in providers');
    await view(page, 'Sign-in providers');
    await fill(page, 'Client ID', 'gh-journey');
    await fill(page, 'Client secret', 'gh-journey-secret-5e2a');
    await press(page, 'Add provider');
    await status(page, 'Saved github.');
    await page.getByRole('table', { name: 'Sign-in providers: 1' }).waitFor();
    expect((await read('/v1/oauth/providers')).providers).toEqual([expect.objectContaining({ provider: 'github', client_id: 'gh-journey', client_secret: '****' })]);
    await checkView(page, 'journey-providers', { docs: false });

    await appNav(page, 'Webhooks');
    await view(page, 'Webhooks');
    await fill(page, 'Endpoint URL', `${receiver.url}/shop`);
    await fill(page, 'Event types', 'user.*');
    await press(page, 'Create endpoint');
    webhookSecret = await page.getByLabel(`Signing secret of ${receiver.url}/shop`, { exact: true }).inputValue();
    expect(webhookSecret).toMatch(/^whsec_/);
    await page.getByRole('table', { name: 'Webhook endpoints: 1 of 20' }).waitFor();
    await checkView(page, 'journey-webhooks', { docs: false });
  });

  it('the owner imports a Supabase CSV: both users in, their user.created delivered to the receiver, signed', { timeout: 120_000 }, async () => {
    const { page } = owner;
    await appNav(page, 'Import');
    await view(page, 'Import users');
    await page.getByLabel('Format', { exact: true }).selectOption('supabase');
    await page.getByLabel('Export file', { exact: true }).setInputFiles({ name: 'users.csv', mimeType: 'text/csv', buffer: Buffer.from(await supabaseCsv()) });
    await press(page, 'Import');
    await page.getByRole('heading', { level: 2, name: 'users.csv: import finished' }).waitFor({ timeout: 60_000 });
    await status(page, '2 of 2 users: imported 2, skipped 0, failed 0');
    await checkView(page, 'journey-import', { docs: false });
    expect((await read('/v1/users')).total).toBe(2);

    const delivered = await receiver.waitFor('/shop', 2, 30_000);
    const hook = new StandardWebhook(webhookSecret);
    const events = delivered.map((d) =>
      hook.verify(d.body, { 'webhook-id': String(d.headers['webhook-id']), 'webhook-timestamp': String(d.headers['webhook-timestamp']), 'webhook-signature': String(d.headers['webhook-signature']) }) as { type: string; data: { email?: string } },
    );
    expect(events.map((e) => `${e.type} ${e.data.email}`).sort()).toEqual([`user.created ${ada}`, `user.created ${bob}`].sort());
  });

  it('the owner invites a viewer, who accepts from the email in a second browser', { timeout: 120_000 }, async () => {
    const { page } = owner;
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Members', exact: true }).click();
    await view(page, 'Members and invitations');
    await fill(page, 'Email to invite', viewerEmail);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await press(page, 'Send invitation');
    await status(page, `Invitation emailed to ${viewerEmail} (viewer)`);
    await checkView(page, 'journey-members', { docs: false });
    const mail = await site.env.sink.waitFor(viewerEmail);
    const link = /https?:\/\/\S+\/console\/accept\?token=\S+/.exec(mail.text)![0];
    const context = await site.context();
    viewer = { context, page: await context.newPage() };
    await viewer.page.goto(link);
    await view(viewer.page, 'Create your console account');
    await signUpInConsole(site, viewer.page, viewerEmail, 1);
    await view(viewer.page, 'Apps');
    await viewer.page.getByText('your role: viewer').waitFor();
  });

  it('the owner searches a user by email, opens them, reads their user.created, bans and deletes them', { timeout: 120_000 }, async () => {
    const { page } = owner;
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Apps', exact: true }).click();
    await view(page, 'Apps');
    await page.getByRole('link', { name: 'Shop', exact: true }).first().click();
    await view(page, 'App settings');
    await appNav(page, 'Users');
    await view(page, 'Users');
    await fill(page, 'Search by email', ada.toUpperCase());
    await press(page, 'Search');
    await page.getByRole('table', { name: `Users with the email ${ada.toUpperCase()}: 1` }).waitFor();
    await checkView(page, 'journey-users', { docs: false });
    await page.getByRole('link', { name: ada }).click();
    await view(page, 'User');
    const userId = page.url().split('/').pop()!;
    const events = page.getByRole('table', { name: 'Events, newest first' });
    await events.getByRole('cell', { name: 'user.created', exact: true }).waitFor();
    await checkView(page, 'journey-user', { docs: false });

    await press(page, 'Ban user');
    await status(page, 'Banned: every session ended');
    await page.getByRole('button', { name: 'Unban user' }).waitFor();
    expect((await read(`/v1/users/${userId}`)).banned).toBe(true);
    // The ban is the user's user.updated event (data.changed: banned), read again by the page.
    await events.getByRole('cell', { name: 'user.updated', exact: true }).waitFor();
    await fill(page, `Type ${ada} to confirm`, ada);
    await press(page, 'Delete user');
    await view(page, 'Users');
    expect((await manage(site.env.server, ownerToken(), 'GET', `/v1/users/${userId}`, undefined, appId)).status).toBe(404);
    expect((await read('/v1/users')).users.map((u: { email: string }) => u.email)).toEqual([bob]);
  });

  it('the owner adds a table and a row, and uploads a file to a new bucket', { timeout: 120_000 }, async () => {
    const { page } = owner;
    await appNav(page, 'Tables');
    await view(page, 'Tables');
    await fill(page, 'Table name', 'notes');
    await fill(page, 'Column 1 name', 'title');
    await press(page, 'Create table');
    await status(page, 'Created the table notes.');
    await checkView(page, 'journey-tables', { docs: false });
    await page.getByRole('link', { name: 'notes', exact: true }).click();
    await view(page, 'Table');
    await fill(page, 'New title', 'first note');
    await press(page, 'Add row');
    await status(page, 'Added the row.');
    await page.getByRole('cell', { name: 'first note' }).waitFor();
    await checkView(page, 'journey-table', { docs: false });
    const [notes] = (await read('/v1/tables')).tables as { table_id: string }[];
    const rows = (await manage(site.env.server, ownerToken(), 'POST', `/v1/tables/${notes!.table_id}/rows/query`, {}, appId)).body.rows as { data: unknown }[];
    expect(rows.map((r) => r.data)).toEqual([{ title: 'first note' }]);

    await appNav(page, 'Buckets');
    await view(page, 'Buckets');
    await fill(page, 'Bucket name', 'docs');
    await press(page, 'Create bucket');
    await status(page, 'Created the bucket docs.');
    await checkView(page, 'journey-buckets', { docs: false });
    await page.getByRole('link', { name: 'docs', exact: true }).click();
    await view(page, 'Bucket');
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'welcome.txt', mimeType: 'text/plain', buffer: Buffer.from('Welcome to Acme') });
    await press(page, 'Upload');
    await status(page, /^Uploaded welcome\.txt /);
    await page.getByRole('cell', { name: 'welcome.txt', exact: true }).waitFor();
    await checkView(page, 'journey-bucket', { docs: false });
    const [docs] = (await read('/v1/buckets')).buckets as { bucket_id: string }[];
    const stored = await fetch(`${site.env.server.url}/v1/buckets/${docs!.bucket_id}/objects/welcome.txt`, { headers: { authorization: `Bearer ${ownerToken()}`, 'x-app-id': appId } });
    expect(await stored.text()).toBe('Welcome to Acme');
  });

  it('the viewer walks the pages of the journey and finds no write control; no request carried a secret', { timeout: 180_000 }, async () => {
    const page = viewer.page;
    /** The controls of main, by name: only reading ones (a search, filters, paging, a download) may be there. */
    const noWriteControl = async (name: string) => {
      await checkView(page, `journey-viewer-${name}`, { docs: false });
      const controls = await page.locator('main').evaluate((main) =>
        [...main.querySelectorAll<HTMLElement>('button, input, select, textarea')].map((el) => el.getAttribute('aria-label') ?? ((el as HTMLInputElement).labels?.[0]?.textContent || el.textContent || el.tagName).trim()),
      );
      expect(controls.filter((c) => !/^(Search by email|Search|Add a condition|Apply filters|Download \S+)$/.test(c)), `write controls on ${name}`).toEqual([]);
    };
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Members', exact: true }).click();
    await view(page, 'Members and invitations');
    await page.getByRole('cell', { name: operator, exact: true }).waitFor();
    await noWriteControl('members');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Apps', exact: true }).click();
    await view(page, 'Apps');
    await page.getByRole('link', { name: 'Shop', exact: true }).waitFor();
    await noWriteControl('apps');
    await page.getByRole('link', { name: 'Shop', exact: true }).click();
    await view(page, 'App settings');
    await page.getByText('Proof-of-work difficulty').waitFor();
    await noWriteControl('app-settings');
    for (const [nav, title, shown] of [
      ['Sign-in providers', 'Sign-in providers', 'gh-journey'],
      ['Webhooks', 'Webhooks', `${receiver.url}/shop`],
      ['Import', 'Import users', 'Importing users needs the owner or admin role'],
      ['Users', 'Users', bob],
      ['Tables', 'Tables', 'notes'],
      ['Buckets', 'Buckets', 'docs'],
    ] as const) {
      await appNav(page, nav);
      await view(page, title);
      await page.locator('main').getByText(shown).first().waitFor();
      await noWriteControl(nav.toLowerCase().replace(/ /g, '-'));
    }
    await page.getByRole('link', { name: 'docs', exact: true }).click();
    await view(page, 'Bucket');
    await page.getByRole('cell', { name: 'welcome.txt', exact: true }).waitFor();
    await noWriteControl('bucket');
    await appNav(page, 'Tables');
    await page.getByRole('link', { name: 'notes', exact: true }).click();
    await view(page, 'Table');
    await page.getByRole('cell', { name: 'first note' }).waitFor();
    await noWriteControl('table');
    await appNav(page, 'Users');
    await page.getByRole('link', { name: bob }).click();
    await view(page, 'User');
    await page.getByRole('table', { name: 'Events, newest first' }).getByRole('cell', { name: 'user.created', exact: true }).waitFor();
    await noWriteControl('user');

    expect(site.cspViolations).toEqual([]);
    expectNoSecretsSent(site);
  });
});
