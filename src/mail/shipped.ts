import { EMAIL_KINDS, type ChallengeWords, type CommonWords, type EmailKind, type InvitationWords, type LocaleWords, type NoticeWords } from './kinds.js';
import { de } from './locales/de.js';
import { en } from './locales/en.js';
import { fr } from './locales/fr.js';

// The templates the service ships: for each kind and shipped locale, Mustache sources of the subject, the
// plain text and the HTML, built once from the locale's words and one layout per family. They are what
// `gatehouse app email-template show` prints when the app has none of its own, ready to copy and edit.

/** One kind of email in one locale: Mustache sources. */
export interface EmailTemplate {
  subject: string;
  text: string;
  html: string;
}

const LOCALES: Record<string, LocaleWords> = { en, fr, de };

/** The locales the service ships templates in. */
export const SHIPPED_LOCALES = Object.keys(LOCALES);

// Literal words of the HTML part: < and & would start markup (the variables are escaped when rendered).
const htmlWords = (words: string) => words.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const head = (subject: string) => [
  '<!doctype html>',
  `<html lang="{{locale}}"><head><meta charset="utf-8"><title>${htmlWords(subject)}</title></head>`,
  '<body style="font-family: sans-serif; line-height: 1.5">',
  `<h1 style="font-size: 20px">${htmlWords(subject)}</h1>`,
];
const foot = (words: string) => [`<p style="color: #666">${htmlWords(words)}</p>`, '</body></html>', ''];

function challenge(w: ChallengeWords, c: CommonWords): EmailTemplate {
  // Section tags alone on their line leave no line behind (Mustache's standalone rule).
  const linkIntro = `{{#code}}${w.link_intro_after_code}{{/code}}{{^code}}${w.link_intro}{{/code}}`;
  const text = [
    w.subject,
    '',
    '{{#code}}',
    w.code_intro,
    '',
    '{{code}}',
    '',
    c.code_validity,
    '',
    '{{/code}}',
    '{{#link}}',
    linkIntro,
    '',
    '{{link}}',
    '',
    c.link_validity,
    '',
    '{{/link}}',
    w.ignore,
    '',
  ];
  const html = [
    ...head(w.subject),
    '{{#code}}',
    `<p>${htmlWords(w.code_intro)}</p>`,
    '<p style="font-size: 28px; font-weight: bold; letter-spacing: 4px"><code>{{code}}</code></p>',
    `<p>${htmlWords(c.code_validity)}</p>`,
    '{{/code}}',
    '{{#link}}',
    `<p>${htmlWords(linkIntro)}</p>`,
    '<p><a href="{{link}}">{{link}}</a></p>',
    `<p>${htmlWords(c.link_validity)}</p>`,
    '{{/link}}',
    ...foot(w.ignore),
  ];
  return { subject: w.subject, text: text.join('\n'), html: html.join('\n') };
}

function notice(w: NoticeWords, c: CommonWords): EmailTemplate {
  const text = [w.subject, '', w.body, '', c.notice_advice, ''];
  const html = [...head(w.subject), `<p>${htmlWords(w.body)}</p>`, ...foot(c.notice_advice)];
  return { subject: w.subject, text: text.join('\n'), html: html.join('\n') };
}

function invitation(w: InvitationWords, c: CommonWords): EmailTemplate {
  const text = [w.subject, '', w.body, '', w.link_intro, '', '{{link}}', '', c.link_validity, '', w.ignore, ''];
  const html = [
    ...head(w.subject),
    `<p>${htmlWords(w.body)}</p>`,
    `<p>${htmlWords(w.link_intro)}</p>`,
    '<p><a href="{{link}}">{{link}}</a></p>',
    `<p>${htmlWords(c.link_validity)}</p>`,
    ...foot(w.ignore),
  ];
  return { subject: w.subject, text: text.join('\n'), html: html.join('\n') };
}

function build(kind: EmailKind, own: unknown, words: LocaleWords): EmailTemplate {
  const entry = EMAIL_KINDS[kind];
  switch (entry.family) {
    case 'challenge':
      return challenge(own as ChallengeWords, words.common);
    case 'notice':
      return notice(own as NoticeWords, words.common);
    case 'invitation':
      return invitation(own as InvitationWords, words.common);
  }
}

const BUILT = new Map<string, EmailTemplate>();

/**
 * The shipped template of `kind` in `locale`, or undefined when the service ships none: another locale, or
 * a shipped one that does not translate this kind yet (the email then falls back along its chain to English).
 */
export function shippedTemplate(kind: EmailKind, locale: string): EmailTemplate | undefined {
  const words = Object.hasOwn(LOCALES, locale) ? LOCALES[locale] : undefined;
  const own = locale === 'en' ? EMAIL_KINDS[kind].en : (words?.kinds as Record<string, unknown> | undefined)?.[kind];
  if (!words || !own) return undefined;
  const key = `${kind}:${locale}`;
  let template = BUILT.get(key);
  if (!template) BUILT.set(key, (template = build(kind, own, words)));
  return template;
}
