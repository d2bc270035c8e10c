import { describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { axeViolations } from '../helpers/axe.js';
import { act, open, screenshot, signedInAs, signUpAndConfirm } from './example-page.js';
import { useSites } from './harness.js';

// Issue 52: the example app's team card (examples/web/team.js on @gatehouse/client's `organizations`) in
// Chromium: Ada creates a team and invites Bob; Bob joins from "Invitations for you"; both read and write the
// team's shared notes; switching back to personal notes hides them. axe-core finds nothing on the way.

const { reason, sites } = useSites();

const titles = (page: import('playwright-core').Page) => page.locator('#note-list li span.grow').allTextContents();

describe.skipIf(reason)(`browser: the example app's team page${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('52 team: create a team, invite, join, shared notes of the team, switch back to personal notes', async () => {
    const ada = await open(await sites.context(), sites.oneUrl);
    const adaEmail = uniqueEmail('team-ada');
    await signUpAndConfirm(sites, ada, adaEmail);
    expect(await ada.textContent('#team-active')).toBe('You are working in your personal notes.');
    await ada.fill('#note-title', 'Only mine');
    expect(await act(ada, '#add-note')).toMatchObject({ state: 'ok' });

    // Bob has an account first (his code email must be the first mail to him).
    const bobContext = await sites.context();
    const bob = await open(bobContext, sites.oneUrl);
    const bobEmail = uniqueEmail('team-bob');
    await signUpAndConfirm(sites, bob, bobEmail);

    await ada.fill('#team-name', 'Acme');
    expect(await act(ada, '#create-team')).toEqual({ state: 'ok', text: 'Acme is ready, and you are working in it. Invite your teammates below.' });
    expect(await ada.textContent('#team-active')).toBe('You are working in Acme as owner: its members share its notes.');
    expect(await ada.textContent('#notes-heading')).toBe('Notes of Acme');
    expect(await titles(ada)).toEqual([]);
    await ada.fill('#note-title', 'Plan the launch');
    expect(await act(ada, '#add-note')).toMatchObject({ state: 'ok' });
    await ada.fill('#invite-email', bobEmail);
    await ada.selectOption('#invite-role', 'member');
    expect(await act(ada, '#invite')).toEqual({ state: 'ok', text: `Invitation sent to ${bobEmail}.` });
    expect(await axeViolations(ada), 'the team card with a team active').toEqual([]);
    // The invitation is emailed with a link back to the page.
    const mail = await sites.env.sink.waitFor(bobEmail, { count: 2 });
    expect(mail.text).toContain(`${sites.oneUrl}?invitation_token=`);

    // Bob sees it on his next visit, joins with one click, and lands in the team's notes.
    await bob.reload();
    await signedInAs(bob, bobEmail);
    await bob.waitForSelector('#invitation-list li');
    expect(await bob.textContent('#invitation-list li span')).toBe('Acme invites you as member');
    expect(await axeViolations(bob), 'an invitation waiting').toEqual([]);
    expect(await act(bob, '#invitation-list button')).toEqual({ state: 'ok', text: 'You joined Acme. Its notes are below.' });
    expect(await bob.textContent('#team-active')).toBe('You are working in Acme as member: its members share its notes.');
    expect(await titles(bob)).toEqual(['Plan the launch']);
    // A member cannot invite: the form is not offered.
    expect(await bob.isHidden('#invite-form')).toBe(true);
    await bob.fill('#note-title', 'I will write the post');
    expect(await act(bob, '#add-note')).toMatchObject({ state: 'ok' });

    // Ada switches to her personal notes and back: each list is its own.
    expect(await act(ada, '#team-personal')).toEqual({ state: 'ok', text: 'You are working in your personal notes now.' });
    expect(await ada.textContent('#notes-heading')).toBe('Notes');
    expect(await titles(ada)).toEqual(['Only mine']);
    const acme = ada.locator('#team-list button', { hasText: 'Switch to Acme' });
    await acme.click();
    await ada.waitForFunction(() => document.getElementById('notice')?.textContent === 'You are working in Acme now.');
    expect(await titles(ada)).toEqual(['I will write the post', 'Plan the launch']);
    expect(await axeViolations(ada), 'shared notes').toEqual([]);
    await screenshot(ada, 'example-app-team.png');
  });
});
