import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/fixtures.js';
import { newGitHubAccount, startGitHubStandIn, type GitHubStandIn } from '../helpers/github-standin.js';
import { open, signedInAs } from './example-page.js';
import { skipReason, startSites, type Sites } from './harness.js';

// The example app's provider buttons (examples/web/app.js) in Chromium: drawn from
// GET /v1/oauth/providers/public, a click goes through the GitHub stand-in's pages and back signed in;
// a GitHub account whose primary email is unverified comes back with the reason said in words.

const reason = skipReason();
let sites: Sites;
let gh: GitHubStandIn;

beforeAll(async () => {
  if (reason) return;
  gh = await startGitHubStandIn();
  sites = await startSites(gh.env);
  gh.clients.set('Iv1.example', 'example-github-secret');
  const put = await api(sites.env.server, 'PUT', '/v1/oauth/providers/github', { bearer: sites.one.secret_key, body: { client_id: 'Iv1.example', client_secret: 'example-github-secret' } });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
});
afterAll(async () => {
  await sites?.stop();
  await gh?.stop();
});
afterEach(() => {
  if (sites) expect(sites.cspViolations).toEqual([]);
});

describe.skipIf(reason)(`browser: the example app's provider buttons${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('"Sign in with GitHub" (only on the app that configured it) → GitHub\'s login page → back on the page, signed in with the primary verified email', async () => {
    const context = await sites.context();
    const page = await open(context, sites.oneUrl);
    expect(await page.textContent('#oauth-sign-ins')).toBe('Sign in with GitHub');
    const other = await open(context, sites.twoUrl);
    expect(await other.textContent('#oauth-sign-ins')).toBe('');

    const account = newGitHubAccount(gh);
    await page.click('#oauth-github');
    await page.waitForURL((url) => url.href.startsWith(`${gh.base}/login/oauth/authorize`));
    await page.fill('input[name="login"]', account.login);
    await page.click('input[type="submit"]');
    await page.waitForURL((url) => url.href.startsWith(sites.oneUrl));
    await signedInAs(page, account.emails[0].email);
    expect(await page.textContent('#notice')).toBe('You are signed in.');
  });

  it('an unverified primary email comes back signed out, the reason in words', async () => {
    const context = await sites.context();
    const page = await open(context, sites.oneUrl);
    const account = newGitHubAccount(gh, { verified: false });
    await page.click('#oauth-github');
    await page.waitForURL((url) => url.href.startsWith(`${gh.base}/login/oauth/authorize`));
    await page.fill('input[name="login"]', account.login);
    await page.click('input[type="submit"]');
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('#notice[data-state="error"]');
    expect(await page.textContent('#notice')).toMatch(/no verified email address with the provider/);
    expect(await page.getAttribute('body', 'data-view')).toBe('signed-out');
    expect(page.url()).not.toContain('error=');
  });
});
