import type { Mail } from './mailer.js';

export type EmailPurpose = 'verify_email' | 'magic_link' | 'password_reset' | 'change_email';

export interface VerificationEmailInput {
  appName: string;
  to: string;
  purpose: EmailPurpose;
  /** The 6-digit code (verification_method code or both). */
  code?: string;
  /** The full link, `{base}/v1/email/verify?token=...` (verification_method link or both). */
  link?: string;
  codeMinutes: number;
  linkMinutes: number;
}

const WORDING: Record<EmailPurpose, { subject: string; codeIntro: string; linkIntro: string; altLinkIntro: string }> = {
  verify_email: {
    subject: 'Verify your email for',
    codeIntro: 'Your verification code is:',
    linkIntro: 'Open this link to verify your email:',
    altLinkIntro: 'Or open this link to verify your email:',
  },
  magic_link: {
    subject: 'Sign in to',
    codeIntro: 'Your sign-in code is:',
    linkIntro: 'Open this link to sign in:',
    altLinkIntro: 'Or open this link to sign in:',
  },
  password_reset: {
    subject: 'Reset your password for',
    codeIntro: 'Your password reset code is:',
    linkIntro: 'Open this link to choose a new password:',
    altLinkIntro: 'Or open this link to choose a new password:',
  },
  change_email: {
    subject: 'Confirm your new email for',
    codeIntro: 'Your confirmation code is:',
    linkIntro: 'Open this link to confirm this address:',
    altLinkIntro: 'Or open this link to confirm this address:',
  },
};

/** What tells whoever did not ask for the email that ignoring it is safe. */
function ignoreLine(purpose: EmailPurpose, appName: string): string {
  switch (purpose) {
    case 'verify_email':
      return `If you did not sign up for ${appName}, ignore this email: without this code or link nobody can verify the account.`;
    case 'password_reset':
      return 'If you did not ask to reset your password, ignore this email: your password stays as it is.';
    case 'change_email':
      return `If you did not ask to use this address for ${appName}, ignore this email: nothing changes without this code or link.`;
    default:
      return 'If you did not ask for this email, you can ignore it.';
  }
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]);
}

// An app name is operator input: line breaks or control characters in it must not forge extra lines in the
// plain-text part (where a stray 6-digit line would read as the code) or in the subject.
function singleLine(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
}

/** "10 minutes", "24 hours", "1 hour". */
export function describeMinutes(minutes: number): string {
  if (minutes >= 60 && minutes % 60 === 0) {
    const hours = minutes / 60;
    return `${hours} hour${hours === 1 ? '' : 's'}`;
  }
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/**
 * The verification / magic-link email: the code, the link, or both (the app's verification_method).
 * The plain-text part carries the code as a 6-digit word alone on its line and the link in full on its own
 * line, so people and scripts can both read them; the HTML part says the same with every value escaped.
 */
export function verificationEmail(input: VerificationEmailInput): Mail {
  if (!input.code && !input.link) throw new Error('verificationEmail needs a code, a link or both');
  const wording = WORDING[input.purpose];
  const appName = singleLine(input.appName) || 'your app';
  const subject = `${wording.subject} ${appName}`;
  const codeValidity = `The code is valid for ${describeMinutes(input.codeMinutes)}.`;
  const linkValidity = `The link is valid for ${describeMinutes(input.linkMinutes)}.`;
  const linkIntro = input.code ? wording.altLinkIntro : wording.linkIntro;
  // A sign-up's email may reach someone who never signed up (another person typed this address): say
  // that ignoring it is safe, and that nobody can use the account without the code or link.
  const ignore = ignoreLine(input.purpose, appName);

  const text: string[] = [subject, ''];
  if (input.code) text.push(wording.codeIntro, '', input.code, '', codeValidity, '');
  if (input.link) text.push(linkIntro, '', input.link, '', linkValidity, '');
  text.push(ignore, '');

  const html: string[] = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5">',
    `<h1 style="font-size: 20px">${escapeHtml(subject)}</h1>`,
  ];
  if (input.code) {
    html.push(
      `<p>${escapeHtml(wording.codeIntro)}</p>`,
      `<p style="font-size: 28px; font-weight: bold; letter-spacing: 4px"><code>${escapeHtml(input.code)}</code></p>`,
      `<p>${escapeHtml(codeValidity)}</p>`,
    );
  }
  if (input.link) {
    const href = escapeHtml(input.link);
    html.push(
      `<p>${escapeHtml(linkIntro)}</p>`,
      `<p><a href="${href}">${href}</a></p>`,
      `<p>${escapeHtml(linkValidity)}</p>`,
    );
  }
  html.push(`<p style="color: #666">${escapeHtml(ignore)}</p>`, '</body></html>', '');

  return { to: input.to, subject, text: text.join('\n'), html: html.join('\n') };
}

export type NoticeKind = 'password_changed' | 'email_changed' | 'factor_added' | 'factor_removed' | 'factors_reset' | 'recovery_codes_renewed' | 'factor_locked';

export interface NoticeEmailInput {
  appName: string;
  to: string;
  kind: NoticeKind;
  /** email_changed: the new address, masked (a***@example.com), so the notice says where without giving it away. */
  newEmailMasked?: string;
}

const NOTICE: Record<NoticeKind, { subject: string; body: (appName: string, masked?: string) => string }> = {
  password_changed: {
    subject: 'Your password was changed for',
    body: (appName) => `The password of your ${appName} account was just changed, and every other device was signed out.`,
  },
  email_changed: {
    subject: 'Your email was changed for',
    body: (appName, masked) => `The email address of your ${appName} account was just changed${masked ? ` to ${masked}` : ''}. This address no longer signs in.`,
  },
  factor_added: {
    subject: 'A second factor was added to your account on',
    body: (appName) => `A second factor (an authenticator app or a passkey) was just added to your ${appName} account; signing in now asks for it.`,
  },
  factor_removed: {
    subject: 'A second factor was removed from your account on',
    body: (appName) => `A second factor (an authenticator app or a passkey) was just removed from your ${appName} account.`,
  },
  factors_reset: {
    subject: 'Your second factors were reset on',
    body: (appName) => `Every second factor and recovery code of your ${appName} account was just removed by the app's operator; signing in asks for your first factor only.`,
  },
  recovery_codes_renewed: {
    subject: 'New recovery codes were made for your account on',
    body: (appName) => `A new set of recovery codes was just made for your ${appName} account; the earlier codes no longer work.`,
  },
  factor_locked: {
    subject: 'Wrong authenticator codes were entered for your account on',
    body: (appName) =>
      `Several wrong authenticator codes in a row were just entered to sign in to your ${appName} account, after its first step (such as your password) succeeded. ` +
      'Your authenticator now refuses codes for a while, longer after each further wrong one; a recovery code or a passkey still signs you in.',
  },
};

/**
 * A notice after a password or email change (docs/account.md): it carries no secret (no code,
 * link, token or password), only what happened and what to do if it was not the reader.
 */
export function noticeEmail(input: NoticeEmailInput): Mail {
  const wording = NOTICE[input.kind];
  const appName = singleLine(input.appName) || 'your app';
  const subject = `${wording.subject} ${appName}`;
  const body = wording.body(appName, input.newEmailMasked && singleLine(input.newEmailMasked));
  const advice = 'If this was you, there is nothing to do. If it was not, reset your password at once and contact the app\'s support.';
  const text = [subject, '', body, '', advice, ''].join('\n');
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5">',
    `<h1 style="font-size: 20px">${escapeHtml(subject)}</h1>`,
    `<p>${escapeHtml(body)}</p>`,
    `<p style="color: #666">${escapeHtml(advice)}</p>`,
    '</body></html>',
    '',
  ].join('\n');
  return { to: input.to, subject, text, html };
}

// A notice shows the new address masked as log lines do (one rule: observability/mask-email.ts).
export { maskEmail } from '../observability/mask-email.js';
