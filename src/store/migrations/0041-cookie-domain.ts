import type { Kysely } from 'kysely';

// Issue 48: the tenant's own API on another subdomain receives the session.
// - applications.cookie_domain: a parent domain of the app's verified domain (services/apps/cookie-domain.ts);
//   `__session` is set with Domain=<it> on answers to requests under it. null: host-only, as before.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').addColumn('cookie_domain', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').dropColumn('cookie_domain').execute();
}
