import Mustache from 'mustache';
import type { Mail } from './mailer.js';
import type { EmailTemplate } from './shipped.js';

// Rendering an email's template (docs/email.md). Mustache is logic-less: a template names values and
// sections, never code, so a tenant's template cannot run anything. Every value is escaped where it lands:
// as HTML in the HTML part (a user's name `<b>` shows as text), and on one line in the subject and the
// plain text (a value with line breaks cannot forge a line that reads as the code). A missing value renders
// as nothing. The view is built of objects without a prototype, so a name such as `constructor` finds nothing.

/** What one email says: the rendered subject and both parts. */
export type RenderedEmail = Pick<Mail, 'subject' | 'text' | 'html'>;

/** Values an email's template may name: JSON values (strings, numbers, objects, arrays). */
export type EmailView = Record<string, unknown>;

/** A value as text: a string, number or boolean as written; an object or list as nothing (a section walks it). */
const textOf = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '');

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: unknown): string => textOf(value).replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);

/** A value on one line: control characters and line separators become spaces. */
export const oneLine = (value: unknown): string => textOf(value).replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ');

/** The longest subject sent (RFC 5322's line length); a longer one is cut. */
const SUBJECT_MAX = 998;

// One writer of our own, its parsed-template cache bounded: tenants' templates must not grow it for ever.
const writer = new Mustache.Writer();
const CACHE_MAX = 500;
const cache = new Map<string, unknown>();
// mustache 4.2's Writer keeps its cache in `templateCache` (not in @types/mustache 4.2.6).
(writer as unknown as { templateCache: unknown }).templateCache = {
  set(key: string, value: unknown) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, value);
  },
  get: (key: string) => cache.get(key),
  clear: () => cache.clear(),
};

/** The view as Mustache walks it: plain data in objects and lists without a prototype (a list stays a list to Array.isArray). */
export function viewOf(value: unknown): unknown {
  if (Array.isArray(value)) return Object.setPrototypeOf(value.map(viewOf), null) as unknown[];
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  const copy = Object.create(null) as Record<string, unknown>;
  for (const [key, inner] of Object.entries(value)) copy[key] = viewOf(inner);
  return copy;
}

/** Renders the three parts of `template` with `view`; throws on a template Mustache cannot parse. */
export function renderTemplate(template: EmailTemplate, view: EmailView): RenderedEmail {
  const data = viewOf(view);
  const subject = oneLine(writer.render(template.subject, data, undefined, { escape: oneLine })).trim().slice(0, SUBJECT_MAX);
  return {
    subject,
    text: writer.render(template.text, data, undefined, { escape: oneLine }),
    html: writer.render(template.html, data, undefined, { escape: escapeHtml }),
  };
}

/** The parsed tokens of a template (Mustache's own parser): [type, value, start, end, children?]. */
export type Token = [string, string, number, number, Token[]?];
export const parseTemplate = (source: string): Token[] => Mustache.parse(source) as unknown as Token[];
