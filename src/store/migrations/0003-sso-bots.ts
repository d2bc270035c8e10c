import type { Kysely } from 'kysely';

// One-time SSO tokens, donation challenges spent (bots and top-ups), bot signature replay cache.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sso_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('source_app_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // Usable once across all apps and all billing top-ups: the primary key is the whole rule.
  await db.schema
    .createTable('donation_challenges_used')
    .addColumn('challenge_id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('bot_auth_replays')
    .addColumn('signature_hash', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['bot_auth_replays', 'donation_challenges_used', 'sso_tokens']) {
    await db.schema.dropTable(table).execute();
  }
}
