import { describe, expect, it } from 'vitest';
import { EMAIL_KIND_NAMES, type EmailKind } from './kinds.js';
import { canonicalLocale, describeDuration, localeChain, localeFromAcceptLanguage } from './locale.js';
import { renderTemplate } from './render.js';
import { SHIPPED_LOCALES, shippedTemplate } from './shipped.js';
import { checkTemplate } from './template-check.js';

const LINK = 'http://127.0.0.1:8080/v1/email/verify?token=el_abc-DEF_123456';

/** The shipped email of `kind`, as compose.ts fills it (durations said in the locale's words). */
function shipped(kind: EmailKind, values: Record<string, unknown>, locale = 'en') {
  return renderTemplate(shippedTemplate(kind, locale)!, { app_name: 'Acme', locale, to: 'ada@example.com', ...values });
}
const en = { code_valid_for: describeDuration(600, 'en'), link_valid_for: describeDuration(86_400, 'en') };

/** The lines of the plain-text part, trimmed. */
const lines = (text: string) => text.split('\n').map((line) => line.trim());

describe('4 email templates (shipped, English)', () => {
  it('4 code: the plain text holds the code as a 6-digit word on its own line, and no link', () => {
    const mail = shipped('verify_email', { ...en, code: '012345' });
    expect(mail.subject).toBe('Verify your email for Acme');
    expect(lines(mail.text)).toContain('012345');
    expect(mail.text).toContain('valid for 10 minutes');
    expect(mail.text).not.toContain('/v1/email/verify');
    expect(mail.html).toContain('012345');
    expect(mail.html).not.toContain('<a ');
  });

  it('4 link and both: the full URL on its own line; "Or open" only after a code', () => {
    const link = shipped('verify_email', { ...en, link: LINK });
    expect(lines(link.text)).toContain(LINK);
    expect(link.text).toContain('Open this link to verify your email:');
    expect(link.text).toContain('valid for 24 hours');
    expect(lines(link.text).some((line) => /^\d{6}$/.test(line))).toBe(false);
    expect(link.html).toContain(`<a href="${LINK}">`);
    const both = shipped('verify_email', { ...en, code: '987654', link: LINK });
    expect(lines(both.text)).toEqual(expect.arrayContaining(['987654', LINK, 'Or open this link to verify your email:']));
  });

  it('escapes a hostile app name and link in the HTML part; the subject and text keep it as written, on one line', () => {
    const hostile = `<script>alert("x")</script> & 'Co'`;
    const link = 'https://example.com/v1/email/verify?token=a"><img src=x onerror=alert(1)>&b=1';
    const mail = shipped('verify_email', { ...en, app_name: hostile, code: '123456', link });
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;');
    expect(mail.html).toContain('token=a&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;b=1');
    expect(mail.subject).toBe(`Verify your email for ${hostile}`);
    const forged = shipped('verify_email', { ...en, app_name: 'Evil\r\n000000\nBcc: x@example.com', link: LINK });
    expect(forged.subject).not.toMatch(/[\r\n]/);
    expect(lines(forged.text)).not.toContain('000000');
  });

  it('15 notices: no secret, the new address as given (masked by the caller)', () => {
    const mail = shipped('email_changed', { new_email_masked: 'g***@example.org' });
    expect(mail.subject).toBe('Your email was changed for Acme');
    expect(mail.text).toContain('was just changed to g***@example.org.');
    expect(shipped('email_changed', {}).text).toContain('was just changed. This address');
    expect(mail.text).not.toMatch(/https?:\/\//);
  });

  it('a name through a prototype finds nothing: the view is data only', () => {
    const mail = renderTemplate({ subject: 'x{{constructor}}', text: '{{app_name.constructor}}|{{user.toString}}', html: '' }, { app_name: 'A', user: { a: 1 } });
    expect(mail.subject).toBe('x');
    expect(mail.text).toBe('|');
    const list = renderTemplate({ subject: 's', text: '{{#user.tags}}[{{.}}]{{/user.tags}}{{user.tags}}{{user.tags.push}}', html: '' }, { user: { tags: ['a', 'b'] } });
    expect(list.text).toBe('[a][b]');
  });
});

describe('locales', () => {
  it('every kind is shipped in English, French and German, and every locale says the code in its own words', () => {
    expect(SHIPPED_LOCALES).toEqual(expect.arrayContaining(['en', 'fr', 'de']));
    for (const kind of EMAIL_KIND_NAMES) for (const locale of SHIPPED_LOCALES) expect(shippedTemplate(kind, locale), `${kind} ${locale}`).toBeDefined();
    const fr = shipped('verify_email', { code: '123456', code_valid_for: describeDuration(600, 'fr') }, 'fr');
    expect(fr.subject).toBe('Vérifiez votre adresse e-mail pour Acme');
    expect(fr.text).toContain('Le code est valable 10 minutes.');
    const de = shipped('magic_link', { link: LINK, link_valid_for: describeDuration(900, 'de') }, 'de');
    expect(de.subject).toBe('Bei Acme anmelden');
    expect(de.text).toContain('Der Link ist 15 Minuten gültig.');
    expect(describeDuration(3600, 'de')).toBe('1 Stunde');
    expect(describeDuration(7 * 86_400, 'fr')).toMatch(/^7\sjours$/);
    expect(describeDuration(86_400, 'en')).toBe('24 hours');
  });

  it('tags: canonical, chained to English, and the preferred one of an Accept-Language', () => {
    expect(canonicalLocale('EN-gb')).toBe('en-GB');
    expect(canonicalLocale('en_US')).toBeUndefined();
    expect(canonicalLocale('<b>')).toBeUndefined();
    expect(localeChain('zh-hant-tw')).toEqual(['zh-Hant-TW', 'zh-Hant', 'zh-TW', 'zh', 'en']);
    expect(localeChain(null)).toEqual(['en']);
    expect(localeFromAcceptLanguage('en;q=0.5, fr-CH, de;q=0.9')).toBe('fr-CH');
    expect(localeFromAcceptLanguage('*')).toBeNull();
    expect(localeFromAcceptLanguage('x_y, de-AT;q=0.2')).toBe('de-AT');
  });
});

describe("a tenant's template is checked before it is kept", () => {
  const ok = { subject: 'Welcome to {{app_name}}', text: '{{#code}}{{code}}{{/code}} {{link}}', html: '<p>{{user.public_metadata.name}}</p>' };
  it('accepts a good one and names the variables no email carries', () => {
    expect(checkTemplate('verify_email', ok)).toEqual({ errors: [], unknownVariables: [] });
    expect(checkTemplate('verify_email', { ...ok, html: '{{user_name}}' }).unknownVariables).toEqual(['user_name']);
  });
  it.each([
    ['an unescaped value', { ...ok, html: '{{{user.email}}}' }, /unescaped/],
    ['an unescaped value (&)', { ...ok, text: '{{code}} {{link}} {{& to}}' }, /unescaped/],
    ['a partial', { ...ok, html: '{{> header}}' }, /partial/],
    ['a code in the subject', { ...ok, subject: 'Your code {{code}}' }, /subject must not/],
    ['a text without the link', { ...ok, text: '{{code}}' }, /names both/],
    ['a broken tag', { ...ok, html: '{{#code}}' }, /not a valid Mustache/],
    ['a prototype name', { ...ok, html: '{{user.constructor}}' }, /no email carries/],
  ])('refuses %s', (_name, template, reason) => {
    expect(checkTemplate('verify_email', template).errors.join(' ')).toMatch(reason);
  });
});
