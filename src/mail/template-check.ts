import { EMAIL_KINDS, type EmailKind } from './kinds.js';
import { parseTemplate, type Token } from './render.js';
import type { EmailTemplate } from './shipped.js';

// What a tenant's template must be before it is kept (gatehouse app email-template set; docs/email.md).

export const TEMPLATE_LIMITS = { subject: 500, text: 64 * 1024, html: 128 * 1024 } as const;

/** Variables every email carries. */
export const COMMON_VARIABLES = ['app_name', 'locale', 'to', 'user'] as const;

// Names of Object.prototype (constructor, __proto__, toString...): a view has no prototype, so they find
// nothing; a template naming one is refused rather than kept to render as nothing.
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

export interface TemplateReport {
  /** Why the template is refused, one sentence each; empty when it may be kept. */
  errors: string[];
  /** Names no email of the kind carries: they render as nothing (a typo, most likely). */
  unknownVariables: string[];
}

function walk(tokens: Token[], visit: (token: Token) => void): void {
  for (const token of tokens) {
    visit(token);
    if (Array.isArray(token[4])) walk(token[4], visit);
  }
}

/** Which variables of the kind a template may name: the common ones and the kind's own. */
export const kindVariables = (kind: EmailKind): string[] => [...COMMON_VARIABLES, ...Object.keys(EMAIL_KINDS[kind].sample)];

/**
 * Checks a template of `kind`: it parses; no value is left unescaped (`{{{ }}}`, `{{& }}`) and no partial
 * is named; the subject never carries the code or the link (subjects show on lock screens and in logs of
 * relays); the text part of an email that carries a code or a link names them, so the code stays readable.
 */
export function checkTemplate(kind: EmailKind, template: EmailTemplate): TemplateReport {
  const errors: string[] = [];
  const names = new Set<string>();
  const family = EMAIL_KINDS[kind].family;
  for (const part of ['subject', 'text', 'html'] as const) {
    const source = template[part];
    if (source.length > TEMPLATE_LIMITS[part]) errors.push(`the ${part} is ${source.length} characters; at most ${TEMPLATE_LIMITS[part]} are kept`);
    if (part !== 'html' && source.trim() === '') errors.push(`the ${part} is empty`);
    let tokens: Token[];
    try {
      tokens = parseTemplate(source);
    } catch (error) {
      errors.push(`the ${part} is not a valid Mustache template: ${(error as Error).message}`);
      continue;
    }
    const used = new Set<string>();
    walk(tokens, ([type, value]) => {
      if (type === '&') errors.push(`the ${part} leaves {{{${value}}}} unescaped: use {{${value}}}, which escapes it`);
      if (type === '>') errors.push(`the ${part} names a partial ({{> ${value}}}): templates have none`);
      if (type !== 'name' && type !== '#' && type !== '^' && type !== '&') return;
      if (value.split('.').some((segment) => PROTOTYPE_NAMES.has(segment))) errors.push(`the ${part} names "${value}", which no email carries`);
      used.add(value);
      if (value !== '.') names.add(value.split('.')[0]!);
    });
    if (part === 'subject' && (used.has('code') || used.has('link'))) errors.push('the subject must not carry the code or the link');
    if (part === 'text' && family === 'challenge' && !(used.has('code') && used.has('link'))) {
      errors.push('the text of an email with a code or a link names both {{code}} and {{link}} (each may sit in its {{#code}} section)');
    }
    if (part === 'text' && family === 'invitation' && !used.has('link')) errors.push('the text of an invitation names {{link}}');
  }
  const known = new Set(kindVariables(kind));
  return { errors: [...new Set(errors)], unknownVariables: [...names].filter((name) => !known.has(name)).sort() };
}
