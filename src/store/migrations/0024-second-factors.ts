import type { Kysely } from 'kysely';

// Second factors (issue 40, docs/mfa.md):
// - mfa_factors: a user's TOTP authenticators (the secret sealed with MASTER_KEY, bound to the factor;
//   last_step is the last time step used, advanced by a conditional write so no code is used twice) and
//   passkeys (WebAuthn credential id, COSE public key, signature counter). `attempts` counts wrong codes
//   while a TOTP factor is unverified (5 and it is dead: enroll again).
// - mfa_recovery_codes: 10 single-use codes per user, stored as SHA-256 (they are random, 50 bits).
// - mfa_challenges: the short-lived state between a first factor and the second: the token's hash, the
//   first factor's amr, wrong guesses (5 per challenge, counted in the write that checks them), a
//   WebAuthn challenge when a passkey is asked for, single use. The clean-up deletes expired ones by
//   the expiry index (as webauthn_challenges).
// - webauthn_challenges: the challenge of a passkey registration or of a passkey sign-in (first factor).
// - sessions.amr: how the session was opened ("pwd,totp"), so a refresh keeps the access token's amr and aal.
// - applications.mfa_policy: 'required' or null (optional).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mfa_factors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('friendly_name', 'text')
    .addColumn('secret_sealed', 'text')
    .addColumn('last_step', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('credential_id', 'text')
    .addColumn('public_key', 'text')
    .addColumn('sign_count', 'bigint')
    .addColumn('transports', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('mfa_factors_user').on('mfa_factors').columns(['app_id', 'user_id']).execute();
  await db.schema.createIndex('mfa_factors_user_ref').on('mfa_factors').columns(['user_id']).execute();
  await db.schema.createIndex('mfa_factors_credential').on('mfa_factors').columns(['app_id', 'credential_id']).unique().execute();

  await db.schema
    .createTable('mfa_recovery_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('mfa_recovery_codes_code').on('mfa_recovery_codes').columns(['app_id', 'user_id', 'code_hash']).unique().execute();
  await db.schema.createIndex('mfa_recovery_codes_user_ref').on('mfa_recovery_codes').columns(['user_id']).execute();

  await db.schema
    .createTable('mfa_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('amr', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('webauthn_challenge', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('mfa_challenges_user_ref').on('mfa_challenges').columns(['user_id']).execute();
  await db.schema.createIndex('mfa_challenges_expiry').on('mfa_challenges').columns(['expires_at']).execute();

  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('user_id', 'text', (c) => c.references('users.id'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('challenge', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('webauthn_challenges_user_ref').on('webauthn_challenges').columns(['user_id']).execute();
  await db.schema.createIndex('webauthn_challenges_expiry').on('webauthn_challenges').columns(['expires_at']).execute();

  await db.schema.alterTable('sessions').addColumn('amr', 'text').execute();
  await db.schema.alterTable('applications').addColumn('mfa_policy', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').dropColumn('mfa_policy').execute();
  await db.schema.alterTable('sessions').dropColumn('amr').execute();
  for (const table of ['webauthn_challenges', 'mfa_challenges', 'mfa_recovery_codes', 'mfa_factors']) {
    await db.schema.dropTable(table).execute();
  }
}
