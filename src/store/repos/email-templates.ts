import type { Db } from '../db.js';
import type { EmailTemplateRow } from '../types.js';

// A tenant's own email templates (docs/email.md): one row per (app, kind, locale), every statement scoped by app.

/** The app's templates of `kind` in any of `locales` (an email's locale chain), in no particular order. */
export async function findEmailTemplates(db: Db, appId: string, kind: string, locales: readonly string[]): Promise<EmailTemplateRow[]> {
  if (locales.length === 0) return [];
  return db.selectFrom('email_templates').selectAll().where('app_id', '=', appId).where('kind', '=', kind).where('locale', 'in', locales).execute();
}

/** Stores the template, replacing the app's earlier one of that kind and locale (its created_at kept). */
export async function upsertEmailTemplate(db: Db, row: EmailTemplateRow): Promise<void> {
  await db
    .insertInto('email_templates')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['app_id', 'kind', 'locale']).doUpdateSet({ subject: row.subject, text_body: row.text_body, html_body: row.html_body, updated_at: row.updated_at }),
    )
    .execute();
}

/** The app's templates, by kind then locale. */
export async function listEmailTemplates(db: Db, appId: string): Promise<Pick<EmailTemplateRow, 'kind' | 'locale' | 'created_at' | 'updated_at'>[]> {
  return db
    .selectFrom('email_templates')
    .select(['kind', 'locale', 'created_at', 'updated_at'])
    .where('app_id', '=', appId)
    .orderBy('kind')
    .orderBy('locale')
    .execute();
}

/** Deletes the app's template of that kind and locale; true when there was one. */
export async function deleteEmailTemplate(db: Db, appId: string, kind: string, locale: string): Promise<boolean> {
  const result = await db.deleteFrom('email_templates').where('app_id', '=', appId).where('kind', '=', kind).where('locale', '=', locale).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
