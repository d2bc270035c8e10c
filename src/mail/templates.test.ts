import { describe, expect, it } from 'vitest';
import { describeMinutes, maskEmail, noticeEmail, verificationEmail, type VerificationEmailInput } from './templates.js';

const LINK = 'http://127.0.0.1:8080/v1/email/verify?token=el_abc-DEF_123456';
const base: VerificationEmailInput = { appName: 'Acme', to: 'ada@example.com', purpose: 'verify_email', codeMinutes: 10, linkMinutes: 24 * 60 };

/** The lines of the plain-text part, trimmed. */
const lines = (text: string) => text.split('\n').map((line) => line.trim());

describe('4 email templates', () => {
  it('4 code: the plain text holds the code as a 6-digit word on its own line, and no link', () => {
    const mail = verificationEmail({ ...base, code: '012345' });
    expect(mail.to).toBe('ada@example.com');
    expect(mail.subject).toBe('Verify your email for Acme');
    expect(lines(mail.text)).toContain('012345');
    expect(mail.text).toContain('valid for 10 minutes');
    expect(mail.text).not.toContain('/v1/email/verify');
    expect(mail.html).toContain('012345');
    expect(mail.html).not.toContain('<a ');
  });

  it('4 link: the plain text holds the full URL on its own line, and no code', () => {
    const mail = verificationEmail({ ...base, link: LINK });
    expect(lines(mail.text)).toContain(LINK);
    expect(mail.text).toContain('valid for 24 hours');
    expect(lines(mail.text).some((line) => /^\d{6}$/.test(line))).toBe(false);
    expect(mail.html).toContain(`<a href="${LINK}">`);
  });

  it('4 both: code and link in one email', () => {
    const mail = verificationEmail({ ...base, code: '987654', link: LINK });
    expect(lines(mail.text)).toEqual(expect.arrayContaining(['987654', LINK]));
    expect(mail.text).toContain('valid for 10 minutes');
    expect(mail.text).toContain('valid for 24 hours');
    expect(mail.html).toContain('987654');
    expect(mail.html).toContain(`<a href="${LINK}">`);
  });

  it('4 magic links: a sign-in subject and the magic link lifetime', () => {
    const mail = verificationEmail({ ...base, purpose: 'magic_link', code: '111222', link: LINK, linkMinutes: 15 });
    expect(mail.subject).toBe('Sign in to Acme');
    expect(mail.text).toContain('sign-in code');
    expect(mail.text).toContain('The link is valid for 15 minutes');
  });

  it('escapes a hostile app name and link in the HTML part', () => {
    const hostile = `<script>alert("x")</script> & 'Co'`;
    const link = 'https://example.com/v1/email/verify?token=a"><img src=x onerror=alert(1)>&b=1';
    const mail = verificationEmail({ ...base, appName: hostile, code: '123456', link });
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;');
    expect(mail.html).toContain('token=a&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;b=1');
    // The plain-text part is not HTML: the name stays as written.
    expect(mail.subject).toBe(`Verify your email for ${hostile}`);
  });

  it('an app name cannot forge lines: line breaks are flattened in subject and text', () => {
    const mail = verificationEmail({ ...base, appName: 'Evil\r\n000000\nBcc: x@example.com', link: LINK });
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(lines(mail.text)).not.toContain('000000');
    expect(lines(mail.text).some((line) => line.startsWith('Bcc:'))).toBe(false);
  });

  it('refuses an email with neither code nor link', () => {
    expect(() => verificationEmail(base)).toThrow();
  });

  it('states lifetimes in words', () => {
    expect(describeMinutes(10)).toBe('10 minutes');
    expect(describeMinutes(15)).toBe('15 minutes');
    expect(describeMinutes(60)).toBe('1 hour');
    expect(describeMinutes(24 * 60)).toBe('24 hours');
    expect(describeMinutes(1)).toBe('1 minute');
  });
});

describe('15 account emails', () => {
  it('15 password reset and new-address emails: their own subjects and what to do if not asked for', () => {
    const reset = verificationEmail({ ...base, purpose: 'password_reset', code: '123456', linkMinutes: 60 });
    expect(reset.subject).toBe('Reset your password for Acme');
    expect(lines(reset.text)).toContain('123456');
    expect(reset.text).toContain('your password stays as it is');
    const change = verificationEmail({ ...base, purpose: 'change_email', link: 'http://localhost:3000/?email_change_token=ec_x' });
    expect(change.subject).toBe('Confirm your new email for Acme');
    expect(change.text).toContain('nothing changes without this code or link');
  });

  it('15 notices: plain text and HTML, no secret, the new address masked', () => {
    const password = noticeEmail({ appName: 'Acme', to: 'ada@example.com', kind: 'password_changed' });
    expect(password.subject).toBe('Your password was changed for Acme');
    expect(password.html).toContain('<h1');
    const email = noticeEmail({ appName: 'A<b>', to: 'ada@example.com', kind: 'email_changed', newEmailMasked: maskEmail('grace@example.org') });
    expect(email.text).toContain('g***@example.org');
    expect(email.text).not.toContain('grace@');
    expect(email.html).toContain('A&lt;b&gt;');
    for (const mail of [password, email]) {
      expect(lines(mail.text).some((line) => /^\d{6}$/.test(line))).toBe(false);
      expect(mail.text).not.toMatch(/https?:\/\//);
    }
  });
});
