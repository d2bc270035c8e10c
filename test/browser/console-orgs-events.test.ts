import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { addMember, ADMIN_TOKEN, consoleUser, manage, tenantOwnedBy, type ConsoleUser } from '../helpers/console.js';
import { api } from '../helpers/fixtures.js';
import { checkView, expectNoSecretsSent, fill, press, sharedConsole, view, type ConsoleSite, openSignedIn, closeClean } from './console-page.js';
import { skipReason } from './harness.js';

// docs/console.md, "Organisations", "Events" and "Activity": an owner makes an organisation, adds a member and
// invites someone in the page, then finds the events of those actions in the log (by type, by user), sees the
// live tail prepend an event made through the API, and reads the activity tables against GET /v1/events/stats.
// A viewer sees the same pages with no write control. Each result is read back through the API.

const skip = skipReason();
let site: ConsoleSite;
let owner: ConsoleUser;
let viewer: ConsoleUser;
let tenantId: string;
let appId: string;
let alice: { id: string; email: string };
const password = 'correct horse battery';

beforeAll(async () => {
  if (skip) return;
  site = await sharedConsole();
  owner = await consoleUser(site.env, site.app, 'owner');
  viewer = await consoleUser(site.env, site.app, 'viewer');
  tenantId = await tenantOwnedBy(site.env, owner, 'Acme');
  await addMember(site.env, tenantId, viewer, 'viewer');
  const app = await manage(site.env.server, ADMIN_TOKEN, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Shop', allowed_origins: ['https://shop.example'] });
  expect(app.status, JSON.stringify(app.body)).toBe(201);
  appId = app.body.app_id;
  const email = uniqueEmail('alice');
  const made = await manage(site.env.server, owner.token, 'POST', '/v1/users', { email, password }, appId);
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  alice = { id: made.body.id, email };
  // Activity: two sign-ins and one failed one today; a disabled webhook (no delivery, so its 24 h stats stay 0).
  for (const attempt of [password, password, 'not the password']) {
    const signIn = await api(site.env.server, 'POST', '/v1/signins', { publishableKey: app.body.publishable_key, body: { email, password: attempt } });
    expect(signIn.status, JSON.stringify(signIn.body)).toBe(attempt === password ? 200 : 401);
  }
  const hook = await manage(site.env.server, owner.token, 'POST', '/v1/webhooks', { url: 'https://hooks.shop.invalid/in', enabled: false }, appId);
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
}, 240_000);
afterAll(async () => {
  await site?.stop();
});

const at = (path: string) => new URL(`/console/t/${tenantId}${path}`, site.setupUrl).href;
const appAt = (path: string) => at(`/apps/${appId}${path}`);
const eventsOf = async (query: string) => (await manage(site.env.server, owner.token, 'GET', `/v1/events?${query}`, undefined, appId)).body.events as { event_id: string; type: string }[];
/** The event types of the log's table, top to bottom. */
// The event types of the table's rows, once it has any (it is drawn after the page's heading).
const typesShown = async (page: Page) => {
  const cells = page.locator('table tbody tr td:nth-child(2)');
  await cells.first().waitFor();
  return cells.allTextContents();
};

describe.skipIf(skip)('the console, organisations, events and activity', () => {
  it('an owner makes an organisation, a member and an invitation, and finds their events', { timeout: 300_000 }, async () => {
    const { context, page } = await openSignedIn(site, appAt('/organizations'), owner.email);
    await view(page, 'Organisations');
    // A custom role: created, then its permissions edited; the API holds both.
    await fill(page, 'Role key', 'auditor');
    await fill(page, 'Role name', 'Auditor');
    await fill(page, 'Role permissions', 'reports:read');
    await press(page, 'Create role');
    await page.getByRole('table', { name: 'Custom roles: 1' }).waitFor();
    await fill(page, 'Permissions of auditor', 'reports:read, org:update');
    await press(page, 'Save auditor');
    await page.getByRole('status').filter({ hasText: 'Saved the role auditor.' }).waitFor();
    const roles = (await manage(site.env.server, owner.token, 'GET', '/v1/organization_roles', undefined, appId)).body.roles;
    expect(roles.map((r: { key: string; name: string; permissions: string[] }) => [r.key, r.name, [...r.permissions].sort()])).toEqual([['auditor', 'Auditor', ['org:read', 'org:update', 'reports:read']]]);
    await checkView(page, 'organizations');

    await fill(page, 'Organisation name', 'Globex Corp');
    await press(page, 'Create organisation');
    await view(page, 'Organisation');
    const orgs = (await manage(site.env.server, owner.token, 'GET', '/v1/organizations', undefined, appId)).body.organizations;
    expect(orgs.map((o: { name: string; slug: string }) => [o.name, o.slug])).toEqual([['Globex Corp', 'globex-corp']]);
    const orgId = orgs[0].organization_id as string;
    expect(page.url()).toContain(`/organizations/${orgId}`);

    // A member by email, as owner; then an invitation. Each is in the API's answer.
    await fill(page, 'User id or email', uniqueEmail('nobody'));
    await press(page, 'Add member');
    await page.getByRole('alert').filter({ hasText: 'Error code: no_such_user' }).waitFor();
    await fill(page, 'User id or email', alice.email.toUpperCase());
    await page.getByLabel('Role of the new member').selectOption('owner');
    await press(page, 'Add member');
    await page.getByRole('status').filter({ hasText: `Added ${alice.email} as owner.` }).waitFor();
    const members = (await manage(site.env.server, owner.token, 'GET', `/v1/organizations/${orgId}/members`, undefined, appId)).body.members;
    expect(members.map((m: { user_id: string; role: string }) => [m.user_id, m.role])).toEqual([[alice.id, 'owner']]);
    const invitee = uniqueEmail('carol');
    await fill(page, 'Email to invite', invitee);
    await page.getByLabel('Role of the invited').selectOption('auditor');
    await press(page, 'Send invitation');
    await page.getByRole('table', { name: 'Invitations: 1' }).getByRole('cell', { name: 'pending' }).waitFor();
    const invitations = (await manage(site.env.server, owner.token, 'GET', `/v1/organizations/${orgId}/invitations`, undefined, appId)).body.invitations;
    expect(invitations.map((i: { email: string; role: string; status: string }) => [i.email, i.role, i.status])).toEqual([[invitee, 'auditor', 'pending']]);
    // The last owner stays: the server's 409, shown with its code.
    await press(page, `Remove ${alice.email}`);
    expect(await page.getByRole('alert').first().textContent()).toMatch(/Error code: last_owner \(HTTP 409\)/);
    await checkView(page, 'organization');
    // A role an invitation holds cannot go: the server's 409, in the page.
    await page.getByRole('link', { name: 'All organisations' }).click();
    await view(page, 'Organisations');
    await press(page, 'Delete auditor');
    await page.getByRole('alert').filter({ hasText: 'Error code: role_in_use (HTTP 409)' }).waitFor();

    // The log, filtered by a comma list of types and prefixes (kept in the address): the three actions, as the API lists them.
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Events' }).click();
    await view(page, 'Events');
    const types = 'organization.created,organization.membership.*,organization.invitation.*';
    await fill(page, 'Types', types);
    await press(page, 'Apply filters');
    await page.getByRole('table', { name: `Events of type ${types}` }).waitFor();
    expect(new URL(page.url()).searchParams.get('type')).toBe(types);
    const orgEvents = await eventsOf(`type=${types}`);
    expect(orgEvents.map((e) => e.type)).toEqual(['organization.invitation.created', 'organization.membership.created', 'organization.created']);
    expect(await typesShown(page)).toEqual(orgEvents.map((e) => e.type));
    // Each event opens to its JSON.
    const opener = page.getByRole('button', { name: `JSON of ${orgEvents[1]!.event_id}` });
    await opener.click();
    expect(await opener.getAttribute('aria-expanded')).toBe('true');
    const json = JSON.parse((await page.locator('pre.json:visible').textContent())!);
    expect(json).toMatchObject({ event_id: orgEvents[1]!.event_id, type: 'organization.membership.created', user_id: alice.id, actor: { type: 'member', id: owner.userId } });
    await checkView(page, 'events');

    // By user: alice's events only (her creation, her sign-ins, the membership), as the API lists them.
    await fill(page, 'Types', '');
    await fill(page, 'User id', alice.id);
    await press(page, 'Apply filters');
    await page.getByRole('table', { name: `Events of user ${alice.id}` }).waitFor();
    const hers = await eventsOf(`user_id=${alice.id}`);
    expect(hers.map((e) => e.type)).toContain('organization.membership.created');
    expect(await typesShown(page)).toEqual(hers.map((e) => e.type));

    // Live tail: a rename through the API appears at the top, announced.
    await fill(page, 'User id', '');
    await fill(page, 'Types', 'organization.*');
    await press(page, 'Apply filters');
    await page.getByRole('table', { name: 'Events of type organization.*' }).waitFor();
    await page.getByLabel('Live tail').check();
    const renamed = await manage(site.env.server, owner.token, 'PATCH', `/v1/organizations/${orgId}`, { name: 'Globex' }, appId);
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    await page.locator('[aria-live="polite"]').filter({ hasText: '1 new event' }).waitFor({ timeout: 15_000 });
    expect((await typesShown(page))[0]).toBe('organization.updated');
    expect(await typesShown(page)).toEqual((await eventsOf('type=organization.*')).map((e) => e.type));
    await page.getByLabel('Live tail').uncheck();

    // Rename and delete (its new name typed) an organisation made through the API.
    const made = await manage(site.env.server, owner.token, 'POST', '/v1/organizations', { name: 'Initech' }, appId);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Organisations' }).click();
    await page.getByRole('link', { name: 'Initech' }).click();
    await view(page, 'Organisation');
    await fill(page, 'Name', 'Initech Ltd');
    await press(page, 'Save');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await manage(site.env.server, owner.token, 'GET', `/v1/organizations/${made.body.organization_id}`, undefined, appId)).body.name).toBe('Initech Ltd');
    await fill(page, 'Type Initech Ltd to confirm', 'Initech Ltd');
    await press(page, 'Delete the organisation');
    await view(page, 'Organisations');
    expect((await manage(site.env.server, owner.token, 'GET', `/v1/organizations/${made.body.organization_id}`, undefined, appId)).status).toBe(404);
    await page.getByRole('table', { name: 'Organisations' }).getByRole('link', { name: 'Globex' }).waitFor();
    expect(await page.getByRole('link', { name: 'Initech' }).count()).toBe(0);

    expect(site.cspViolations).toEqual([]);
    await context.close();
  });

  it("the activity tables show the stats' counts; the tenant's events list its management actions", { timeout: 180_000 }, async () => {
    const { context, page } = await openSignedIn(site, appAt('/activity'), owner.email);
    await view(page, 'Activity');
    const stats = (await manage(site.env.server, owner.token, 'GET', '/v1/events/stats', undefined, appId)).body.days as { date: string; counts: Record<string, number> }[];
    expect(stats).toHaveLength(30);
    const today = stats[stats.length - 1]!;
    expect(today.counts).toMatchObject({ 'user.created': 1, 'session.created': 2, 'signin.failed': 1 });
    // The tables render once the page has the stats (after its heading): each row is waited for, then read.
    const row = async (table: string, date: string) => {
      const found = page.getByRole('table', { name: table }).getByRole('row').filter({ has: page.getByRole('rowheader', { name: date }) });
      await found.waitFor();
      return (await found.locator('td').allTextContents()).map(Number);
    };
    for (const day of [today, stats[0]!]) {
      expect(await row('Sign-ups (user.created) and sign-ins (session.created) per day', day.date)).toEqual([day.counts['user.created'] ?? 0, day.counts['session.created'] ?? 0]);
      expect(await row('Failed sign-ins (signin.failed) per day', day.date)).toEqual([day.counts['signin.failed'] ?? 0]);
      expect(await row('Active users: sessions started (session.created) per day, not distinct users', day.date)).toEqual([day.counts['session.created'] ?? 0]);
    }
    expect(await page.getByRole('img', { name: /^Sign-ups .* per day: 1 sign-ups, 2 sign-ins in total$/ }).count()).toBe(1);
    await page.getByText('https://hooks.shop.invalid/in: no delivery in 24 hours').waitFor();
    const [hook] = (await manage(site.env.server, owner.token, 'GET', '/v1/webhooks', undefined, appId)).body.webhooks;
    const hookRow = page.getByRole('table', { name: /^Success rate of the last 24 hours/ }).getByRole('row').filter({ has: page.getByRole('rowheader', { name: hook.url }) });
    expect(await hookRow.locator('td').allTextContents()).toEqual(['0.0 %', String(hook.stats.succeeded_24h), String(hook.stats.failed_24h)]);
    await checkView(page, 'activity');

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Events' }).click();
    await view(page, 'Tenant events');
    const theirs = (await manage(site.env.server, owner.token, 'GET', `/v1/tenants/${tenantId}/events`)).body.events as { type: string }[];
    expect(theirs.map((e) => e.type)).toContain('app.created');
    expect(await typesShown(page)).toEqual(theirs.map((e) => e.type));
    await checkView(page, 'tenant-events');
    expectNoSecretsSent(site);
    await context.close();
  });

  it('a viewer reads organisations, events and activity with no write control', { timeout: 180_000 }, async () => {
    const { context, page } = await openSignedIn(site, appAt('/organizations'), viewer.email);
    await view(page, 'Organisations');
    await page.getByRole('link', { name: 'Globex' }).click();
    await view(page, 'Organisation');
    await page.getByRole('table', { name: 'Invitations: 1' }).waitFor();
    const main = page.getByRole('main');
    expect(await main.getByRole('button').count()).toBe(0);
    expect(await main.getByRole('textbox').count()).toBe(0);
    expect(await main.getByRole('combobox').count()).toBe(0);
    await checkView(page, 'organization-viewer');
    await page.getByRole('link', { name: 'All organisations' }).click();
    await view(page, 'Organisations');
    expect(await main.getByRole('button').count()).toBe(0);
    expect(await main.getByRole('textbox').count()).toBe(0);
    // The log and the charts read only: their filters and the live tail are the whole of their controls.
    const appNav = page.getByRole('navigation', { name: 'App' });
    await appNav.getByRole('link', { name: 'Events' }).click();
    await view(page, 'Events');
    expect((await main.getByRole('button').allTextContents()).filter((name) => !name.startsWith('JSON of evt_'))).toEqual(['Apply filters']);
    await appNav.getByRole('link', { name: 'Activity' }).click();
    await view(page, 'Activity');
    await page.getByRole('table', { name: 'Failed sign-ins (signin.failed) per day' }).waitFor();
    expect(await main.getByRole('button').count()).toBe(0);
    await closeClean(site, context);
  });
});
