import type { Kysely } from 'kysely';

// Per-app `--link-landing`: when on, an emailed link answers a one-button page that POSTs the token,
// so link scanners and prefetchers that GET every URL in a mail never consume it.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').addColumn('link_landing', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').dropColumn('link_landing').execute();
}
