import type { Mail } from './mailer.js';
import { escapeHtml } from './templates.js';

// The invitation to an organisation (docs/organizations.md): who invites to what, and the link that
// carries the invitation token to the app's page, which accepts it with the invited user's session.

export interface InvitationEmailInput {
  appName: string;
  organizationName: string;
  to: string;
  /** The app's page with `?invitation_token=...`. */
  link: string;
  role: string;
  days: number;
}

const oneLine = (value: string) => value.replace(/[\r\n\t]+/g, ' ').trim();

export function invitationEmail(input: InvitationEmailInput): Mail {
  const appName = oneLine(input.appName) || 'your app';
  const organization = oneLine(input.organizationName);
  const subject = `You are invited to join ${organization} on ${appName}`;
  const body = `You were invited to join the organization ${organization} on ${appName} as ${input.role}.`;
  const action = 'Open this link, then sign in with this email address to accept:';
  const validity = `The invitation is valid for ${input.days} days.`;
  const ignore = 'If you do not know this organization, ignore this email: nothing happens without this link and this address.';
  const text = [subject, '', body, '', action, '', input.link, '', validity, '', ignore, ''].join('\n');
  const href = escapeHtml(input.link);
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5">',
    `<h1 style="font-size: 20px">${escapeHtml(subject)}</h1>`,
    `<p>${escapeHtml(body)}</p>`,
    `<p>${escapeHtml(action)}</p>`,
    `<p><a href="${href}">${href}</a></p>`,
    `<p>${escapeHtml(validity)}</p>`,
    `<p style="color: #666">${escapeHtml(ignore)}</p>`,
    '</body></html>',
    '',
  ].join('\n');
  return { to: input.to, subject, text, html };
}
