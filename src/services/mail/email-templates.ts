import { iso, type Clock } from '../../clock.js';
import { badRequest, notFound } from '../../errors.js';
import { EMAIL_KIND_NAMES, EMAIL_KINDS, isEmailKind, type EmailKind } from '../../mail/kinds.js';
import { canonicalLocale } from '../../mail/locale.js';
import { renderTemplate, type RenderedEmail } from '../../mail/render.js';
import { SHIPPED_LOCALES, type EmailTemplate } from '../../mail/shipped.js';
import { checkTemplate } from '../../mail/template-check.js';
import type { Db } from '../../store/db.js';
import * as templates from '../../store/repos/email-templates.js';
import { inTransaction } from '../../store/transaction.js';
import { requireApp } from '../apps/apps.js';
import { recordEvent } from '../events/record.js';
import { eventOf, OPERATOR_CONTEXT, type EventContext } from '../events/types.js';
import { emailView, resolveTemplate } from './compose.js';

// A tenant's own email templates, per app, kind and locale (gatehouse app email-template ...; docs/email.md).

export interface EmailTemplateDeps {
  db: Db;
  clock: Clock;
}

/** A template as an app's email of that kind and locale uses it. */
export interface EmailTemplateView extends EmailTemplate {
  app_id: string;
  kind: EmailKind;
  /** The locale the template is written in (the asked one, or the first of its chain that has one). */
  locale: string;
  /** `app`: the tenant's own; `shipped`: the service's. */
  source: 'app' | 'shipped';
}

function kindOf(kind: string): EmailKind {
  if (!isEmailKind(kind)) throw badRequest(`unknown kind of email "${kind}"; the kinds are ${EMAIL_KIND_NAMES.join(', ')}`, 'invalid_email_template');
  return kind;
}

/** A locale as stored: canonical BCP 47, or 400 `invalid_locale`. */
export function localeOf(locale: string): string {
  const canonical = canonicalLocale(locale);
  if (!canonical) throw badRequest(`locale "${locale.slice(0, 40)}" is not a BCP 47 language tag (such as en, fr-CA, de)`, 'invalid_locale');
  return canonical;
}

/** The template an email of `kind` to a reader in `locale` uses now. */
export async function showEmailTemplate(deps: EmailTemplateDeps, appId: string, kind: string, locale = 'en'): Promise<EmailTemplateView> {
  await requireApp(deps.db, appId);
  const k = kindOf(kind);
  const resolved = await resolveTemplate(deps.db, appId, k, localeOf(locale));
  return { app_id: appId, kind: k, locale: resolved.locale, source: resolved.source, ...resolved.template };
}

/**
 * Keeps the app's own template of `kind` in `locale`. A part not given is taken from the template the app
 * uses there now (its own, else the shipped one), so a new subject alone keeps the words of the body.
 * Refused (400 `invalid_email_template`, nothing kept) when mail/template-check.ts finds a fault.
 */
export async function setEmailTemplate(
  deps: EmailTemplateDeps,
  appId: string,
  kind: string,
  locale: string,
  parts: Partial<EmailTemplate>,
  context: EventContext = OPERATOR_CONTEXT,
): Promise<EmailTemplateView & { unknown_variables: string[] }> {
  const app = await requireApp(deps.db, appId);
  const k = kindOf(kind);
  const tag = localeOf(locale);
  if (parts.subject === undefined && parts.text === undefined && parts.html === undefined) throw badRequest('give a subject, a text or an HTML part', 'invalid_email_template');
  const current = await resolveTemplate(deps.db, appId, k, tag);
  const template: EmailTemplate = { ...current.template, ...parts };
  const report = checkTemplate(k, template);
  if (report.errors.length > 0) throw badRequest(report.errors.join('; '), 'invalid_email_template');
  const at = deps.clock.now();
  const now = iso(at);
  await inTransaction(deps.db, async (trx) => {
    await templates.upsertEmailTemplate(trx, {
      app_id: appId,
      kind: k,
      locale: tag,
      subject: template.subject,
      text_body: template.text,
      html_body: template.html,
      created_at: now,
      updated_at: now,
    });
    await recordTemplateEvent(trx, app, k, tag, context, at);
  });
  return { app_id: appId, kind: k, locale: tag, source: 'app', ...template, unknown_variables: report.unknownVariables };
}

/** The app's own templates, and what there is to write: every kind and the shipped locales. */
export async function listEmailTemplates(deps: EmailTemplateDeps, appId: string) {
  await requireApp(deps.db, appId);
  return {
    templates: await templates.listEmailTemplates(deps.db, appId),
    kinds: EMAIL_KIND_NAMES.map((kind) => ({ kind, family: EMAIL_KINDS[kind].family, description: EMAIL_KINDS[kind].description })),
    shipped_locales: SHIPPED_LOCALES,
  };
}

/** Deletes the app's own template: its emails go back to the shipped one. 404 when it has none there. */
export async function deleteEmailTemplate(
  deps: EmailTemplateDeps,
  appId: string,
  kind: string,
  locale: string,
  context: EventContext = OPERATOR_CONTEXT,
): Promise<{ status: 'deleted' }> {
  const app = await requireApp(deps.db, appId);
  const [k, tag] = [kindOf(kind), localeOf(locale)];
  const at = deps.clock.now();
  await inTransaction(deps.db, async (trx) => {
    if (!(await templates.deleteEmailTemplate(trx, appId, k, tag))) throw notFound(`the app has no template of its own for ${kind} in ${locale}`);
    await recordTemplateEvent(trx, app, k, tag, context, at);
  });
  return { status: 'deleted' };
}

/** A change of the app's templates is a change of the app: `app.updated`, naming what changed (never the words). */
function recordTemplateEvent(trx: Db, app: { id: string; tenantId: string }, kind: EmailKind, locale: string, context: EventContext, at: Date) {
  return recordEvent(trx, eventOf(context, { type: 'app.updated', tenantId: app.tenantId, appId: app.id, userId: null, data: { changed: ['email_templates'], kind, locale } }), at);
}

/**
 * The email as a reader in `locale` would receive it, filled with sample data (mail/kinds.ts): the template
 * the app uses there now, or `parts` over it (checked as `set` checks them, and not kept).
 */
export async function previewEmailTemplate(
  deps: EmailTemplateDeps,
  appId: string,
  kind: string,
  locale = 'en',
  parts: Partial<EmailTemplate> = {},
): Promise<RenderedEmail & { kind: EmailKind; locale: string; source: 'app' | 'shipped' | 'draft' }> {
  const app = await requireApp(deps.db, appId);
  const k = kindOf(kind);
  const tag = localeOf(locale);
  const resolved = await resolveTemplate(deps.db, appId, k, tag);
  const draft = parts.subject !== undefined || parts.text !== undefined || parts.html !== undefined;
  const template = { ...resolved.template, ...parts };
  const report = checkTemplate(k, template);
  if (report.errors.length > 0) throw badRequest(report.errors.join('; '), 'invalid_email_template');
  const sample = Object.entries(EMAIL_KINDS[k].sample);
  const to = 'ada@example.com';
  const view = emailView(app, draft ? tag : resolved.locale, {
    to,
    user: { id: '00000000-0000-4000-8000-000000000000', email: to, locale: tag, publicMetadata: { name: 'Ada Lovelace' }, unsafeMetadata: {} },
    values: Object.fromEntries(sample.filter(([, v]) => typeof v === 'string')) as Record<string, string>,
    durations: Object.fromEntries(sample.filter(([, v]) => typeof v === 'number')) as Record<string, number>,
  });
  return { kind: k, locale: draft ? tag : resolved.locale, source: draft ? 'draft' : resolved.source, ...renderTemplate(template, view) };
}

