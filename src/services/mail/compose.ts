import type { Db } from '../../store/db.js';
import type { EmailKind } from '../../mail/kinds.js';
import { describeDuration, localeChain } from '../../mail/locale.js';
import type { Mail } from '../../mail/mailer.js';
import { oneLine, renderTemplate, type EmailView } from '../../mail/render.js';
import { shippedTemplate, type EmailTemplate } from '../../mail/shipped.js';
import type { Application } from '../../store/repos/applications.js';
import { findEmailTemplates } from '../../store/repos/email-templates.js';
import type { User } from '../../store/repos/users.js';
import { enqueueMail, type OutboxDeps } from './outbox.js';

// An email in the tenant's words and the reader's language (docs/email.md). It is rendered when it is queued,
// in the transaction that queues it, and sealed whole in the outbox: the worker sends what was rendered, a
// template changed later does not change an email already queued, and the code or link in it is only ever
// in the sealed message (never in a log line, never in the outbox row in clear).

/** The app an email is from: its name and sender. */
export type MailingApp = Pick<Application, 'id' | 'name' | 'emailFrom' | 'replyTo'>;

/** The user an email is about (their language; what their template may name). Never the private metadata. */
export type EmailUser = Pick<User, 'id' | 'email'> & Partial<Pick<User, 'locale' | 'publicMetadata' | 'unsafeMetadata'>>;

export interface EmailInput {
  to: string;
  /** The reader: their locale picks the template; `user.*` in a template names them. */
  user?: EmailUser;
  /** The language when there is no user (an invitation to an address); else the user's. */
  locale?: string | null;
  /** The kind's own values (mail/kinds.ts); an absent one renders as nothing. */
  values?: Record<string, string | undefined>;
  /** Lifetimes to say in the reader's language, in seconds: `{link_valid_for: 86400}` says "24 hours". */
  durations?: Record<string, number>;
}

/** A template as an email of the app uses it: the app's own, else the shipped one, in the first locale of the chain that has one. */
export interface ResolvedTemplate {
  template: EmailTemplate;
  locale: string;
  source: 'app' | 'shipped';
}

/** The template of `kind` for a reader in `locale`: along the locale chain (fr-CA, fr, en), the app's own first, then the shipped one. */
export async function resolveTemplate(db: Db, appId: string, kind: EmailKind, locale: string | null | undefined): Promise<ResolvedTemplate> {
  const chain = localeChain(locale);
  const own = await findEmailTemplates(db, appId, kind, chain);
  for (const candidate of chain) {
    const row = own.find((r) => r.locale === candidate);
    if (row) return { template: { subject: row.subject, text: row.text_body, html: row.html_body }, locale: candidate, source: 'app' };
    const shipped = shippedTemplate(kind, candidate);
    if (shipped) return { template: shipped, locale: candidate, source: 'shipped' };
  }
  // The chain ends with English, which every kind ships.
  return { template: shippedTemplate(kind, 'en')!, locale: 'en', source: 'shipped' };
}

/** What a template of the app sees: every email's values, then the kind's. */
export function emailView(app: Pick<Application, 'name'>, locale: string, input: EmailInput): EmailView {
  const durations = Object.fromEntries(Object.entries(input.durations ?? {}).map(([name, seconds]) => [name, describeDuration(seconds, locale)]));
  const user = input.user && {
    id: input.user.id,
    email: input.user.email,
    locale: input.user.locale ?? null,
    public_metadata: input.user.publicMetadata ?? {},
    unsafe_metadata: input.user.unsafeMetadata ?? {},
  };
  return { app_name: oneLine(app.name).trim() || 'your app', locale, to: input.to, user, ...durations, ...input.values };
}

/** Renders the email of `kind` for the reader, from the app's sender. */
export async function composeEmail(db: Db, app: MailingApp, kind: EmailKind, input: EmailInput): Promise<Mail> {
  const resolved = await resolveTemplate(db, app.id, kind, input.locale ?? input.user?.locale);
  const view = emailView(app, resolved.locale, input);
  let rendered;
  try {
    rendered = renderTemplate(resolved.template, view);
  } catch {
    // A template is checked when it is set; one that still fails to render (kept by an older release) is
    // not allowed to stop a sign-in's email: the shipped one in the same language goes instead.
    rendered = renderTemplate(shippedTemplate(kind, resolved.locale) ?? shippedTemplate(kind, 'en')!, view);
  }
  return { to: input.to, kind, ...(app.emailFrom && { from: app.emailFrom }), ...(app.replyTo && { replyTo: app.replyTo }), ...rendered };
}

/** Renders the email and queues it in `db` (the caller's transaction: both commit or neither does). */
export async function queueEmail(deps: OutboxDeps, app: MailingApp, kind: EmailKind, input: EmailInput): Promise<string> {
  return enqueueMail(deps, app.id, await composeEmail(deps.db, app, kind, input));
}

// A sign-up's language comes from its Accept-Language (http/routes/auth/signups.ts).
export { localeFromAcceptLanguage } from '../../mail/locale.js';
