import type { FastifyReply } from 'fastify';
import type { LinkState } from '../../services/link-landing.js';

// The only HTML Gatehouse answers besides /docs: what a person sees after following an emailed link.
// Inline styles only; the CSP forbids scripts and frames (the button cannot be clickjacked). No
// form-action: Chromium applies it to the redirect after the POST, which goes to the app's own origin.

const CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string, referrerPolicy = 'no-referrer'): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="${referrerPolicy}"><title>${escape(title)}</title>
<style>
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f4f5f7;
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328}
main{background:#fff;max-width:26rem;margin:1rem;padding:2rem;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.25rem;margin:0 0 .75rem}p{margin:0 0 1.25rem;color:#484f58}
a.button,button{display:inline-block;font:inherit;font-weight:600;padding:.6rem 1.2rem;border:0;border-radius:8px;
background:#1f6feb;color:#fff;text-decoration:none;cursor:pointer}
</style></head>
<body><main>${body}</main></body></html>
`;
}

const MESSAGES: Record<Exclude<LinkState, 'live'>, { title: string; text: string }> = {
  used: {
    title: 'This link was already used',
    text: 'Each link works once, and a newer email replaces older links. Go back to the app and ask for a new one if you still need to sign in.',
  },
  expired: { title: 'This link has expired', text: 'Go back to the app and ask for a new email.' },
  unknown: { title: 'This link is not valid', text: 'It may have been copied incompletely. Go back to the app and ask for a new email.' },
};

function sendHtml(reply: FastifyReply, status: number, html: string, referrerPolicy = 'no-referrer'): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CSP)
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store')
    .header('referrer-policy', referrerPolicy)
    .send(html);
}

/** 400 page for a person whose link is used, expired or unknown, with a way back to the app when one is known. */
export function sendLinkErrorPage(reply: FastifyReply, state: Exclude<LinkState, 'live'>, backUrl: string | undefined): FastifyReply {
  const { title, text } = MESSAGES[state];
  const back = backUrl ? `<a class="button" href="${escape(backUrl)}">Back to the app</a>` : '';
  return sendHtml(reply, 400, page(title, `<h1>${title}</h1><p>${text}</p>${back}`));
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
