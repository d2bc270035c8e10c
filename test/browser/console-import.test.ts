import { hash as bcryptHash } from '@node-rs/bcrypt';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manage, type ConsoleUser } from '../helpers/console.js';
import { api } from '../helpers/fixtures.js';
import { checkView, fill, press, sharedConsole, view, type ConsoleSite, ownerViewerAndApp, openSignedIn, closeClean } from './console-page.js';
import { skipReason } from './harness.js';

// docs/console.md, "Import": an owner imports a Supabase CSV and a Firebase auth:export JSON (with the
// project's hash parameters pasted) through the page, as the vendors write them: the progress reaches the
// file's total, the one bad user of each is listed with its code, and an imported user signs in through the
// API with the password they had there. A viewer sees the page without an import control.

const skip = skipReason();
let site: ConsoleSite;
let owner: ConsoleUser;
let viewer: ConsoleUser;
let tenantId: string;
let appId: string;
let publishableKey: string;
const stamp = Date.now().toString(36);

beforeAll(async () => {
  if (skip) return;
  site = await sharedConsole();
  ({ owner, viewer, tenantId, appId, publishableKey } = await ownerViewerAndApp(site));
}, 240_000);
afterAll(async () => {
  await site?.stop();
});

const importUrl = () => new URL(`/console/t/${tenantId}/apps/${appId}/import`, site.setupUrl).href;
const signIn = (email: string, password: string) => api(site.env.server, 'POST', '/v1/signins', { publishableKey, body: { email, password } });

/** Supabase's auth.users as `\copy ... with csv header` writes it: two users, and one whose bcrypt hash is cut short. */
async function supabaseCsv(ada: string, bob: string, bad: string): Promise<string> {
  const header = 'instance_id,id,aud,role,email,encrypted_password,email_confirmed_at,invited_at,confirmation_token,recovery_token,last_sign_in_at,raw_app_meta_data,raw_user_meta_data,is_super_admin,created_at,updated_at,phone,deleted_at,is_anonymous';
  const row = (n: number, email: string, hash: string) =>
    `00000000-0000-0000-0000-000000000000,0b4f6c1e-0000-4000-8000-00000000000${n},authenticated,authenticated,${email},${hash},2024-01-02 03:05:00+00,,,,,"{""provider"":""email""}","{""name"":""A, B""}",,2024-01-02 03:04:05.123456+00,2024-01-02 03:04:05.123456+00,,,false`;
  return [header, row(1, ada, await bcryptHash('ada password', 6)), row(2, bob, await bcryptHash('bob password', 6)), row(3, bad, '$2b$10$abc')].join('\n') + '\n';
}

/** Firebase's published scrypt example (the password user1password), a phone-only user, a user without a password. */
const firebaseJson = (email: string) =>
  JSON.stringify({
    users: [
      { localId: 'fb-1', email, emailVerified: true, passwordHash: 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==', salt: '42xEC+ixf3L2lw==', createdAt: '1486324027000' },
      { localId: 'fb-2', phoneNumber: '+15555550100', createdAt: '1486324027000' },
      { localId: 'fb-3', email: `nopass.${stamp}@example.com`, emailVerified: false, createdAt: '1486324027000' },
    ],
  });
const HASH_CONFIG = 'hash_config {\n  algorithm: SCRYPT,\n  base64_signer_key: jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==,\n  base64_salt_separator: Bw==,\n  rounds: 8,\n  mem_cost: 14,\n}';

/** Picks the format and the file, presses Import and waits for the counts `done` (or, without, the refusal). */
async function importThrough(page: Page, format: string, name: string, text: string, done?: string): Promise<void> {
  await page.getByLabel('Format', { exact: true }).selectOption(format);
  await page.getByLabel('Export file', { exact: true }).setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
  await press(page, 'Import');
  if (!done) return void (await page.getByRole('heading', { level: 2, name: `${name}: import stopped` }).waitFor({ timeout: 60_000 }));
  await page.getByRole('heading', { level: 2, name: `${name}: import finished` }).waitFor({ timeout: 60_000 });
  await page.getByRole('status').filter({ hasText: done }).waitFor();
}

/** The progress bar at its end: its value is its maximum, the file's count of users. */
async function expectProgressAtTotal(page: Page, total: number): Promise<void> {
  const bar = page.getByRole('progressbar', { name: 'Users handled' });
  expect(await bar.getAttribute('max')).toBe(String(total));
  expect(await bar.getAttribute('value')).toBe(String(total));
}

describe.skipIf(skip)('the console, importing users', () => {
  it('an owner imports a Supabase CSV and a Firebase JSON: progress to the total, the bad user listed, passwords kept', { timeout: 300_000 }, async () => {
    const { context, page } = await openSignedIn(site, importUrl(), owner.email);
    await view(page, 'Import users');
    expect(await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Import' }).getAttribute('aria-current')).toBe('page');
    await checkView(page, 'import');

    const [ada, bob, bad] = ['ada', 'bob', 'bad'].map((n) => `${n}.${stamp}@example.com`) as [string, string, string];
    await importThrough(page, 'supabase', 'users.csv', await supabaseCsv(ada, bob, bad), '3 of 3 users: imported 2, skipped 0, failed 1');
    await expectProgressAtTotal(page, 3);
    const failures = page.getByRole('table', { name: 'Failed users: 1' });
    const cells = await failures.getByRole('row').nth(1).getByRole('cell').allTextContents();
    expect(cells).toEqual(['3', `b***@example.com`, 'invalid_password_hash', expect.stringMatching(/bcrypt/i)]);
    await checkView(page, 'import-done');
    expect((await signIn(ada, 'ada password!')).status).toBe(401);
    const adaIn = await signIn(ada, 'ada password');
    expect(adaIn.status, JSON.stringify(adaIn.body)).toBe(200);
    const listed = await manage(site.env.server, owner.token, 'GET', `/v1/users?email=${encodeURIComponent(bob)}`, undefined, appId);
    expect(listed.body.users[0]).toMatchObject({ email: bob, email_verified: true, external_id: '0b4f6c1e-0000-4000-8000-000000000002' });

    // Firebase: the project's hash parameters pasted; its phone-only user fails alone, by the reader.
    const fb = `user1.${stamp}@example.com`;
    await page.getByLabel('Format', { exact: true }).selectOption('firebase');
    await fill(page, 'Password hash parameters (Firebase)', HASH_CONFIG);
    await importThrough(page, 'firebase', 'users.json', firebaseJson(fb), '3 of 3 users: imported 2, skipped 0, failed 1');
    await expectProgressAtTotal(page, 3);
    const fbCells = await page.getByRole('table', { name: 'Failed users: 1' }).getByRole('row').nth(1).getByRole('cell').allTextContents();
    expect(fbCells).toEqual(['2', '–', 'validation_failed', expect.stringMatching(/no email/)]);
    const fbIn = await signIn(fb, 'user1password');
    expect(fbIn.status, JSON.stringify(fbIn.body)).toBe(200);

    // The same file again, a user the app has already skipped: nothing changes.
    await page.getByLabel('A user the app has already', { exact: true }).selectOption('skip');
    await importThrough(page, 'firebase', 'users.json', firebaseJson(fb), '3 of 3 users: imported 0, skipped 2, failed 1');
    expect((await manage(site.env.server, owner.token, 'GET', '/v1/users', undefined, appId)).body.total).toBe(4);

    // A file of 1,001 users goes in two calls, 1,000 and 1; the bar ends at the total.
    const importCalls = () => site.requests.filter((r) => r.startsWith('POST ') && r.includes('/v1/users/import'));
    const before = importCalls().length;
    const many = Array.from({ length: 1001 }, (_, i) => JSON.stringify({ email: `many${i}.${stamp}@example.com` })).join('\n');
    await importThrough(page, 'gatehouse', 'users.ndjson', many, '1001 of 1001 users: imported 1001, skipped 0, failed 0');
    await expectProgressAtTotal(page, 1001);
    const calls = importCalls().slice(before);
    expect(calls.map((r) => (r.match(/"email":/g) ?? []).length)).toEqual([1000, 1]);

    // A call the server refuses whole (an email that is not a string): its detail and code, nothing imported.
    await importThrough(page, 'gatehouse', 'bad.ndjson', '{"email": 5}\n');
    const problem = page.getByRole('alert');
    expect(await problem.textContent()).toMatch(/Error code: validation_failed \(HTTP 400\)/);
    expect((await manage(site.env.server, owner.token, 'GET', '/v1/users', undefined, appId)).body.total).toBe(1005);

    await closeClean(site, context);
  });

  it('a viewer sees the page and no import control', { timeout: 120_000 }, async () => {
    const { context, page } = await openSignedIn(site, importUrl(), viewer.email);
    await view(page, 'Import users');
    await page.getByText('Importing users needs the owner or admin role').waitFor();
    const main = page.getByRole('main');
    expect(await main.getByRole('button').count()).toBe(0);
    expect(await main.locator('input, select, textarea').count()).toBe(0);
    await checkView(page, 'import-viewer');
    await context.close();
  });
});
