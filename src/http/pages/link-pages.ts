import type { FastifyReply } from 'fastify';
import type { LinkState } from '../../services/accounts/link-landing.js';
import { backButton, codeLine, escapeHtml as escape, page, sendHtml } from './page.js';

// What a person sees after following an emailed link. No form-action in the CSP (page.ts): Chromium
// applies it to the redirect after the POST, which goes to the app's own origin.

const MESSAGES: Record<Exclude<LinkState, 'live'>, { title: string; text: string }> = {
  used: {
    title: 'This link was already used',
    text: 'Each link works once, and a newer email replaces older links. Go back to the app and ask for a new one if you still need to sign in.',
  },
  expired: { title: 'This link has expired', text: 'Go back to the app and ask for a new email.' },
  unknown: { title: 'This link is not valid', text: 'It may have been copied incompletely. Go back to the app and ask for a new email.' },
};

/** 400 page for a person whose link is used, expired or unknown, with a way back to the app when one is known. */
export function sendLinkErrorPage(reply: FastifyReply, state: Exclude<LinkState, 'live'>, backUrl: string | undefined): FastifyReply {
  const { title, text } = MESSAGES[state];
  return sendHtml(reply, 400, page(title, `<h1>${title}</h1><p>${text}</p>${codeLine('invalid_token')}${backButton(backUrl)}`));
}

/**
 * 200 page with one button that POSTs the token: opening the link (as a mail scanner or a prefetcher
 * does) consumes nothing; a person's click does.
 */
export function sendLinkLandingPage(reply: FastifyReply, token: string, appName: string | undefined, purpose: 'verify' | 'signin'): FastifyReply {
  const title = purpose === 'signin' ? 'Sign in' : 'Confirm your email';
  const label = purpose === 'signin' ? `Sign in${appName ? ` to ${escape(appName)}` : ''}` : 'Confirm my email';
  const body =
    `<h1>${title}</h1><p>Press the button to continue${appName ? ` to <strong>${escape(appName)}</strong>` : ''}.</p>` +
    `<form method="post" action="/v1/email/verify"><input type="hidden" name="token" value="${escape(token)}">` +
    `<button type="submit">${label}</button></form>`;
  // same-origin, not no-referrer: with no-referrer the form's POST would carry `Origin: null`, which a
  // cross-site sandboxed page can send too; the POST refuses any Origin but its own host and the allow-list.
  return sendHtml(reply, 200, page(title, body, 'same-origin'), 'same-origin');
}
