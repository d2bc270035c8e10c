import type { Kysely } from 'kysely';

// Issue 49: emails in the tenant's words and languages (docs/email.md).
// - applications.email_from, reply_to: the app's sender and Reply-To, checked when set
//   (services/apps/email-sender.ts); null: EMAIL_FROM, and no Reply-To.
// - users.locale: the user's language, a canonical BCP 47 tag (from Accept-Language at sign-up, PATCH /v1/me,
//   PATCH /v1/users/{id}); null: English.
// - email_templates: a tenant's own subject, text and HTML of one kind of email in one locale of one app,
//   Mustache sources checked when set (mail/template-check.ts). An email uses it over the shipped one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').addColumn('email_from', 'text').execute();
  await db.schema.alterTable('applications').addColumn('reply_to', 'text').execute();
  await db.schema.alterTable('users').addColumn('locale', 'text').execute();
  await db.schema
    .createTable('email_templates')
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('email_templates_pk', ['app_id', 'kind', 'locale'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('email_templates').execute();
  await db.schema.alterTable('users').dropColumn('locale').execute();
  await db.schema.alterTable('applications').dropColumn('reply_to').execute();
  await db.schema.alterTable('applications').dropColumn('email_from').execute();
}
