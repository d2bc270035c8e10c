import { describe, expect, it } from 'vitest';
import { codeFor, uniqueEmail } from '../helpers/accounts.js';
import { act, open, png, signedInAs, signedOut, signIn, signUpAndConfirm } from './example-page.js';
import { useSites } from './harness.js';

// The example app's signed-in side in Chromium, through @gatehouse/client: forgot password, password and
// email changes, "where you're signed in" with a revoke, notes (a table's rows), the profile picture (an
// upload with progress), deleting the account, and two tabs whose refresh falls due at the same moment.

const { reason, sites } = useSites();

describe.skipIf(reason)(`browser: the example app's account, notes and picture${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('forgot password: the emailed code and a new password sign the person in; the old password no longer works', async () => {
    const email = uniqueEmail('forgot');
    await signUpAndConfirm(sites, await open(await sites.context(), sites.oneUrl), email);
    const page = await open(await sites.context(), sites.oneUrl);
    await page.fill('#email', email);
    expect(await act(page, '#forgot')).toEqual({ state: 'ok', text: 'Check your email.' });
    await page.fill('#code', await codeFor(sites.env.sink, email, 2));
    await page.fill('#new-password', 'a brand new password');
    expect(await act(page, '#use-code')).toEqual({ state: 'ok', text: 'Password changed. You are signed in, and signed out everywhere else.' });
    await signedInAs(page, email);
    expect(await act(page, '#sign-out')).toMatchObject({ state: 'ok' });
    await signedOut(page);
    expect(await signIn(page, email, 'correct horse battery')).toMatchObject({ state: 'error' });
    expect(await signIn(page, email, 'a brand new password')).toEqual({ state: 'ok', text: 'Welcome back.' });
  });

  it('forgot password by the emailed link: it opens the app asking for a new password, which signs the person in', async () => {
    const email = uniqueEmail('reset-link');
    await signUpAndConfirm(sites, await open(await sites.context(), sites.oneUrl), email);
    const page = await open(await sites.context(), sites.oneUrl);
    await page.fill('#email', email);
    expect(await act(page, '#forgot')).toEqual({ state: 'ok', text: 'Check your email.' });
    const mail = await sites.env.sink.waitFor(email, { count: 2 });
    const link = new URL(/^http\S+reset_token=\S+$/m.exec(mail.text)![0]);
    expect(link.origin + link.pathname).toBe(sites.oneUrl);
    await page.goto(link.href);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.isVisible('#reset-step')).toBe(true);
    expect(page.url()).toBe(sites.oneUrl); // the token left the address bar
    await page.fill('#reset-password', 'chosen from the link');
    expect(await act(page, '#save-reset')).toEqual({ state: 'ok', text: 'Password changed. You are signed in.' });
    await signedInAs(page, email);
  });

  it('changes the password and the email (confirmed by the code sent to the new address, then by its link)', async () => {
    const page = await open(await sites.context(), sites.oneUrl);
    const email = uniqueEmail('change');
    await signUpAndConfirm(sites, page, email);
    await page.fill('#current-password', 'correct horse battery');
    await page.fill('#changed-password', 'another good password');
    expect(await act(page, '#change-password')).toEqual({ state: 'ok', text: 'Password changed. Your other devices were signed out.' });

    const moved = uniqueEmail('moved');
    await page.fill('#new-email', moved);
    expect(await act(page, '#change-email')).toEqual({ state: 'ok', text: `We sent a code to ${moved}. Enter it below to confirm.` });
    await page.fill('#email-code-input', await codeFor(sites.env.sink, moved));
    expect(await act(page, '#confirm-email')).toEqual({ state: 'ok', text: `Your email is now ${moved}.` });
    await signedInAs(page, moved);
    expect(await page.textContent('#who')).toBe(moved);

    const fresh = await open(await sites.context(), sites.oneUrl);
    expect(await signIn(fresh, moved, 'another good password')).toEqual({ state: 'ok', text: 'Welcome back.' });

    // Once more by the link in the email: it opens the app, which confirms the change with the session.
    const again = uniqueEmail('moved-by-link');
    await page.fill('#new-email', again);
    expect(await act(page, '#change-email')).toMatchObject({ state: 'ok' });
    const mail = await sites.env.sink.waitFor(again);
    await page.goto(/^http\S+email_change_token=\S+$/m.exec(mail.text)![0]);
    await page.waitForSelector('body[data-ready="true"]');
    await signedInAs(page, again);
    expect(await page.textContent('#notice')).toBe(`Your email is now ${again}.`);
    expect(page.url()).toBe(sites.oneUrl);
  });

  it("lists where the person is signed in and signs another device out; that device's page goes back to signed out", async () => {
    const mine = await open(await sites.context(), sites.oneUrl);
    const email = uniqueEmail('devices');
    await signUpAndConfirm(sites, mine, email);
    const other = await open(await sites.context(), sites.oneUrl);
    expect(await signIn(other, email, 'correct horse battery')).toMatchObject({ state: 'ok' });
    await signedInAs(other, email);

    await mine.reload();
    await signedInAs(mine, email);
    expect(await mine.locator('#session-list li').count()).toBe(2);
    expect(await mine.locator('#session-list li .tag').count()).toBe(1);
    expect(await act(mine, '#session-list li button')).toEqual({ state: 'ok', text: 'That device is signed out.' });
    expect(await mine.locator('#session-list li').count()).toBe(1);

    await other.reload();
    await signedOut(other);
    expect(await mine.textContent('#session-list')).toContain('This device');
  });

  it('keeps notes (a table row per note, only the person\'s own) and a profile picture uploaded with progress', async () => {
    const context = await sites.context();
    const page = await open(context, sites.oneUrl);
    await signUpAndConfirm(sites, page, uniqueEmail('notes'));
    for (const title of ['Buy flour', 'Call Grace']) {
      await page.fill('#note-title', title);
      expect(await act(page, '#add-note')).toEqual({ state: 'ok', text: 'Note saved.' });
    }
    expect(await page.locator('#note-list li .grow').allTextContents()).toEqual(['Call Grace', 'Buy flour']);
    await page.check('#note-list li:last-child input[type=checkbox]');
    await page.waitForSelector('#notice[data-state="ok"]:text("Nice, one less thing to do.")');
    expect(await act(page, '#note-list li:first-child button')).toEqual({ state: 'ok', text: 'Note deleted.' });

    const picture = png(700); // about 1.4 MB
    await page.evaluate(() => {
      const seen: string[] = ((window as unknown as { progress: string[] }).progress = []);
      new MutationObserver(() => seen.push(document.getElementById('avatar-progress')!.getAttribute('value')!)).observe(document.getElementById('avatar-progress')!, { attributes: true, attributeFilter: ['value'] });
    });
    const uploaded = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().includes('/objects/avatar'));
    await page.setInputFiles('#avatar-file', { name: 'me.png', mimeType: 'image/png', buffer: picture });
    await page.waitForSelector('#notice[data-state="ok"]:text("Picture updated.")', { timeout: 30_000 });
    expect((await uploaded).status()).toBe(200);
    const progress = await page.evaluate(() => (window as unknown as { progress: string[] }).progress.map(Number));
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toBe(1);

    await page.reload();
    await page.waitForSelector('body[data-loaded="true"]');
    expect(await page.locator('#note-list li .grow').allTextContents()).toEqual(['Buy flour']);
    expect(await page.locator('#note-list li').getAttribute('class')).toBe('done');
    // The picture comes back through the client (a Blob of the stored bytes) and renders.
    await page.waitForFunction(() => (document.getElementById('avatar') as HTMLImageElement).naturalWidth === 700);
    expect(await page.getAttribute('#avatar', 'src')).toMatch(/^blob:/);

    // Another person sees none of it.
    const stranger = await open(await sites.context(), sites.oneUrl);
    await signUpAndConfirm(sites, stranger, uniqueEmail('stranger'));
    expect(await stranger.locator('#note-list li').count()).toBe(0);
    expect(await stranger.isVisible('#avatar')).toBe(false);
  });

  it('deletes the account after a confirmation: signed out, and the password opens nothing any more', async () => {
    const page = await open(await sites.context(), sites.oneUrl);
    const email = uniqueEmail('delete');
    await signUpAndConfirm(sites, page, email);
    await page.click('#delete-account');
    expect(await page.isVisible('#delete-confirm')).toBe(true);
    await page.click('#cancel-delete');
    expect(await page.isVisible('#delete-confirm')).toBe(false);
    await page.click('#delete-account');
    expect(await act(page, '#confirm-delete')).toEqual({ state: 'ok', text: 'Your account and everything in it were deleted.' });
    await signedOut(page);
    expect(await signIn(page, email, 'correct horse battery')).toMatchObject({ state: 'error' });
  });

  it('two tabs whose refresh falls due at once keep the session: one refresh request, both tabs still work, the session is not revoked', async () => {
    const context = await sites.context();
    await context.clock.install(); // the pages' clocks, which the test moves forward (the server's stays real)
    const first = await open(context, sites.oneUrl);
    const email = uniqueEmail('tabs');
    await signUpAndConfirm(sites, first, email);
    const second = await open(context, sites.oneUrl);
    await signedInAs(second, email);
    const refreshes: number[] = [];
    const spent: string[] = [];
    context.on('response', (r) => {
      if (r.url().endsWith('/v1/tokens/session') && r.request().method() === 'POST') refreshes.push(r.status());
    });
    context.on('request', async (r) => {
      if (r.url().endsWith('/v1/tokens/session') && r.method() === 'POST') spent.push((await r.headerValue('cookie')) ?? '');
    });
    const before = (await context.cookies()).find((c) => c.name === '__refresh')!.value;

    // 14.5 minutes on: both tabs' access token is within the minute before its expiry, and both refresh timers fire.
    await context.clock.fastForward('14:30');
    for (const [page, title] of [[first, 'From the first tab'], [second, 'From the second tab']] as const) {
      await page.fill('#note-title', title);
      expect(await act(page, '#add-note')).toEqual({ state: 'ok', text: 'Note saved.' });
    }
    // One tab refreshed; the other waited for its result (usually spending nothing). Never one token twice.
    expect(refreshes.length).toBeGreaterThanOrEqual(1);
    expect(refreshes.every((status) => status === 200)).toBe(true);
    expect(new Set(spent).size).toBe(spent.length);
    expect((await context.cookies()).find((c) => c.name === '__refresh')!.value).not.toBe(before);

    for (const page of [first, second]) {
      await page.reload();
      await signedInAs(page, email);
      expect(await page.locator('#session-list li').count()).toBe(1);
      expect(await page.locator('#note-list li .grow').allTextContents()).toEqual(['From the second tab', 'From the first tab']);
    }
  });
});
