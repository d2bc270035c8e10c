import type { Kysely } from 'kysely';

// Users, sessions, refresh tokens, emailed codes and links, spent hashcash challenges.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('email', 'text')
    .addColumn('email_normalized', 'text')
    .addColumn('email_verified', 'integer', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('is_bot', 'integer', (c) => c.notNull())
    .addColumn('public_key', 'text')
    // 1 for self sign-ups until the email is verified: they may not sign in with the password before.
    .addColumn('requires_verification', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // Emails are unique per app case-insensitively; bots (email null) do not collide.
    .addUniqueConstraint('users_app_email', ['app_id', 'email_normalized'])
    .addUniqueConstraint('users_app_public_key', ['app_id', 'public_key'])
    .execute();
  await db.schema.createIndex('users_app_created').on('users').columns(['app_id', 'created_at']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').columns(['app_id', 'user_id']).execute();

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('rotated_at', 'text')
    .execute();
  await db.schema.createIndex('refresh_tokens_session').on('refresh_tokens').column('session_id').execute();

  await db.schema
    .createTable('email_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('email_normalized', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text')
    .addColumn('code_expires_at', 'text')
    .addColumn('link_hash', 'text', (c) => c.unique())
    .addColumn('link_expires_at', 'text')
    .addColumn('redirect_url', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('email_challenges_lookup')
    .on('email_challenges')
    .columns(['app_id', 'email_normalized', 'purpose'])
    .execute();

  await db.schema
    .createTable('hashcash_spent')
    .addColumn('challenge_hash', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['hashcash_spent', 'email_challenges', 'refresh_tokens', 'sessions', 'users']) {
    await db.schema.dropTable(table).execute();
  }
}
