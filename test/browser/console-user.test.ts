import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { manage, type ConsoleUser } from '../helpers/console.js';
import { api } from '../helpers/fixtures.js';
import { checkView, fill, press, sharedConsole, view, type ConsoleSite, ownerViewerAndApp, openSignedIn, closeClean } from './console-page.js';
import { skipReason } from './harness.js';

// docs/console.md, "A user": one user of an app in the console. The owner opens them from the list, sees a
// session made by a real sign-in and its event, revokes it (the refresh then fails), issues a sign-in token
// (it calls /v1/me), exports (the file names the user), bans (the sign-in is refused) and deletes after
// typing the email; each result read back through the API. A viewer sees the page with no write control.

const skip = skipReason();
const PASSWORD = 'correct horse battery';
let site: ConsoleSite;
let owner: ConsoleUser;
let viewer: ConsoleUser;
let tenantId: string;
let appId: string;
let publishableKey: string;

async function userWithSession(email: string, userAgent: string) {
  const made = await manage(site.env.server, owner.token, 'POST', '/v1/users', { email, password: PASSWORD }, appId);
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const session = await signIn(email, userAgent);
  expect(session.status, JSON.stringify(session.body)).toBe(200);
  return { id: made.body.id as string, sessionId: session.body.session_id as string, refreshToken: session.body.refresh_token as string };
}
const signIn = (email: string, userAgent = 'Laptop/2.0') =>
  api(site.env.server, 'POST', '/v1/signins', { publishableKey, body: { email, password: PASSWORD }, headers: { 'user-agent': userAgent } });
const refresh = (refresh_token: string) => api(site.env.server, 'POST', '/v1/tokens/session', { publishableKey, body: { refresh_token } });
const userUrl = (id?: string) => new URL(`/console/t/${tenantId}/apps/${appId}/users${id ? `/${id}` : ''}`, site.setupUrl).href;

beforeAll(async () => {
  if (skip) return;
  site = await sharedConsole();
  ({ owner, viewer, tenantId, appId, publishableKey } = await ownerViewerAndApp(site));
}, 240_000);
afterAll(async () => {
  await site?.stop();
});

describe.skipIf(skip)('the console, one user of an app', () => {
  it('an owner revokes a session, issues a sign-in token, exports, bans and deletes the user', { timeout: 300_000 }, async () => {
    const email = uniqueEmail('ada');
    const ada = await userWithSession(email, 'Phone/1.0');
    const { context, page } = await openSignedIn(site, userUrl(), owner.email);
    await view(page, 'Users');
    await page.getByRole('link', { name: email }).click();
    await view(page, 'User');
    expect(new URL(page.url()).pathname).toBe(`/console/t/${tenantId}/apps/${appId}/users/${ada.id}`);
    await page.getByRole('heading', { level: 2, name: email }).waitFor();
    const sessions = page.getByRole('table', { name: 'Live sessions: 1' });
    await sessions.waitFor();
    expect(await sessions.getByRole('row').nth(1).textContent()).toMatch(/Phone\/1\.0.*pwd \(aal1\)/);
    const events = page.getByRole('table', { name: 'Events, newest first' });
    await events.getByRole('cell', { name: 'session.created', exact: true }).waitFor();
    expect(await events.getByRole('cell', { name: 'user.created', exact: true }).count()).toBe(1);
    await checkView(page, 'user');

    // Revoke the session: gone from the page, its refresh token refused.
    await press(page, `Revoke session ${ada.sessionId.slice(0, 8)}`);
    await page.getByRole('status').filter({ hasText: `Revoked session ${ada.sessionId.slice(0, 8)}.` }).waitFor();
    await page.getByText('No live session: the user is signed in nowhere.').waitFor();
    expect((await refresh(ada.refreshToken)).status).toBe(401);
    await events.getByRole('cell', { name: 'session.revoked', exact: true }).waitFor();

    // A sign-in token: a lifetime of 0 is the server's refusal, shown with its code; then one shown once
    // with its expiry, which reads the user's /v1/me.
    await fill(page, 'Access token lifetime (seconds)', '0');
    await press(page, 'Issue sign-in token');
    const problem = page.locator('#sign-in-token').locator('..').getByRole('alert');
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/Error code: \w+ \(HTTP 400\)/);
    await fill(page, 'Access token lifetime (seconds)', '600');
    await press(page, 'Issue sign-in token');
    await page.getByRole('status').filter({ hasText: 'Issued: the access token expires' }).waitFor();
    const token = await page.getByLabel('Access token (JWT)', { exact: true }).inputValue();
    const me = await api(site.env.server, 'GET', '/v1/me', { publishableKey, bearer: token });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.email).toBe(email);
    await page.getByRole('table', { name: 'Live sessions: 1' }).waitFor();
    await checkView(page, 'user-sign-in-token');

    // Export: the downloaded file parses and names the user.
    const download = page.waitForEvent('download');
    await press(page, 'Export as JSON');
    const file = await download;
    expect(file.suggestedFilename()).toBe(`user-${ada.id}.json`);
    const exported = JSON.parse(await readFile((await file.path())!, 'utf8'));
    expect(exported.user).toMatchObject({ id: ada.id, email });
    await page.getByRole('status').filter({ hasText: `Saved user-${ada.id}.json.` }).waitFor();

    // Metadata: the private object saved, read back through the API.
    await fill(page, 'Private metadata', '{"plan": "pro"}');
    await press(page, 'Save metadata');
    await page.getByRole('status').filter({ hasText: 'Saved: private_metadata.' }).waitFor();
    expect((await manage(site.env.server, owner.token, 'GET', `/v1/users/${ada.id}`, undefined, appId)).body.private_metadata).toEqual({ plan: 'pro' });

    // Ban: the page says so, the sign-in token's session ended, a sign-in is refused.
    await press(page, 'Ban user');
    await page.getByRole('status').filter({ hasText: 'Banned: every session ended' }).waitFor();
    await page.getByRole('button', { name: 'Unban user' }).waitFor();
    const refused = await signIn(email);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('user_banned');
    expect((await api(site.env.server, 'GET', '/v1/me', { publishableKey, bearer: token })).status).toBe(401);

    // Delete: only once the email is typed; then back to the list, and the user is gone.
    const remove = page.getByRole('button', { name: 'Delete user', exact: true });
    expect(await remove.isDisabled()).toBe(true);
    await fill(page, `Type ${email} to confirm`, email);
    await checkView(page, 'user-delete');
    await remove.click();
    await view(page, 'Users');
    expect((await manage(site.env.server, owner.token, 'GET', `/v1/users/${ada.id}`, undefined, appId)).status).toBe(404);

    await closeClean(site, context);
  });

  it('a viewer sees the user, their session and events, and no write control', { timeout: 180_000 }, async () => {
    const email = uniqueEmail('grace');
    const grace = await userWithSession(email, 'Tablet/3.0');
    // 20 more sign-ins: 22 events (user.created, 21 session.created), more than a page of 20.
    for (let i = 0; i < 20; i++) expect((await signIn(email, 'Tablet/3.0')).status).toBe(200);
    const { context, page } = await openSignedIn(site, userUrl(grace.id), viewer.email);
    await view(page, 'User');
    await page.getByRole('heading', { level: 2, name: email }).waitFor();
    await page.getByRole('table', { name: 'Live sessions: 21' }).getByRole('cell', { name: 'Tablet/3.0' }).first().waitFor();
    const events = page.getByRole('table', { name: 'Events, newest first' });
    await events.getByRole('cell', { name: 'session.created', exact: true }).first().waitFor();
    expect(await events.getByRole('row').count()).toBe(21); // the header and 20 events
    expect(await events.getByRole('cell', { name: 'user.created', exact: true }).count()).toBe(0);
    // The older events by keyset: the cursor in the address, the 2 oldest there.
    await page.getByRole('link', { name: 'Older events' }).click();
    const older = page.getByRole('table', { name: 'Events, newest first (a later page)' });
    await older.waitFor();
    expect(new URL(page.url()).searchParams.get('cursor')).toBeTruthy();
    expect(await older.getByRole('row').count()).toBe(3);
    expect(await older.getByRole('cell', { name: 'user.created', exact: true }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Older events' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Newest events' }).click();
    await events.waitFor();
    await page.getByRole('heading', { level: 2, name: 'Metadata' }).waitFor();
    expect(await page.locator('main').locator('button, input, select, textarea').count()).toBe(0);
    await checkView(page, 'user-viewer');
    await closeClean(site, context);
  });
});
