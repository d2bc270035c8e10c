import { sql, type Kysely } from 'kysely';

// Account self-service (docs/account.md).
// - sessions keep the user agent and IP they were opened from ("where you're signed in"); a partial
//   index over live sessions lists a user's sessions newest first without walking revoked ones.
// - email_challenges keep the address as typed for an email change (email_normalized is the new
//   address, lower-cased), and an index by user finds the user's change-of-email challenge (its confirm
//   names no email) and retires the user's challenges.

export async function up(db: Kysely<any>): Promise<void> {
  // One column a statement: SQLite adds one at a time.
  await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('ip', 'text').execute();
  await db.schema.alterTable('email_challenges').addColumn('new_email', 'text').execute();
  await db.schema
    .createIndex('sessions_user_live')
    .on('sessions')
    .columns(['app_id', 'user_id', 'created_at'])
    .where(sql.ref('revoked_at'), 'is', null)
    .execute();
  await db.schema.createIndex('email_challenges_user').on('email_challenges').columns(['app_id', 'user_id', 'purpose']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('email_challenges_user').execute();
  await db.schema.dropIndex('sessions_user_live').execute();
  await db.schema.alterTable('email_challenges').dropColumn('new_email').execute();
  await db.schema.alterTable('sessions').dropColumn('ip').execute();
  await db.schema.alterTable('sessions').dropColumn('user_agent').execute();
}
