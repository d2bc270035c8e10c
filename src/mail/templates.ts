import type { Mail } from './mailer.js';

export type EmailPurpose = 'verify_email' | 'magic_link';

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
};

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
  const ignore =
    input.purpose === 'verify_email'
      ? `If you did not sign up for ${appName}, ignore this email: without this code or link nobody can verify the account.`
      : 'If you did not ask for this email, you can ignore it.';

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
