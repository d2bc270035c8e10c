import type { Kysely } from 'kysely';

// Issue 51: mfa_challenges.method, how the first factor signed the user in (password, code, magic_link,
// reset, oauth, sso; docs/events.md), so the session a second factor completes records it in its
// session.created event; provider for OAuth. Null for a challenge made before this migration.
// webhook_deliveries_event: a deleted user's events find their deliveries, whose bodies are written again
// without the user's personal data (services/events/erasure.ts).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mfa_challenges').addColumn('method', 'text').execute();
  await db.schema.alterTable('mfa_challenges').addColumn('provider', 'text').execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['event_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_event').execute();
  await db.schema.alterTable('mfa_challenges').dropColumn('provider').execute();
  await db.schema.alterTable('mfa_challenges').dropColumn('method').execute();
}
