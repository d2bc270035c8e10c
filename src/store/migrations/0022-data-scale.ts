import { sql, type Kysely } from 'kysely';

// Flat cost at a million users (issue 38):
// - active_users: one row per (app, user, month) the user had a session started or refreshed in, and
//   active_user_counts: how many such rows each (app, month) has, in 16 slots (the user id's first hex digit,
//   so concurrent first activities of a month do not all wait for one counter row on PostgreSQL). Billing
//   reads the counts (services/billing/metering.ts); the rows only make the count exact (a user counts once).
//   Filled here from what sessions and the earlier form's refresh tokens say (the months migration 0014 keeps).
// - sessions.sweep_after: when the clean-up next looks at the session (its expiry when written; the clean-up
//   moves it to the current expiry of a session still live). Indexed instead of expires_at, which every
//   refresh moves: the refresh then changes no indexed column (PostgreSQL keeps it a HOT update).
// - users (app_id, created_at, id): the user list's newest-first order and its keyset, whole in one index.
// - an index under every clean-up delete.

const CLEAN_UP_INDEXES: [name: string, table: string, column: string][] = [
  ['hashcash_spent_expires', 'hashcash_spent', 'expires_at'],
  ['bot_auth_replays_expires', 'bot_auth_replays', 'expires_at'],
  ['sso_tokens_expires', 'sso_tokens', 'expires_at'],
  ['email_challenges_created', 'email_challenges', 'created_at'],
  ['oauth_states_expires', 'oauth_states', 'expires_at'],
  ['refresh_tokens_expires', 'refresh_tokens', 'expires_at'],
  ['refresh_tokens_rotated', 'refresh_tokens', 'rotated_at'],
  ['sessions_sweep', 'sessions', 'sweep_after'],
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('active_users')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('active_users_pk', ['app_id', 'user_id', 'period'])
    .execute();
  await db.schema.createIndex('active_users_period').on('active_users').column('period').execute();
  await db.schema
    .createTable('active_user_counts')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('slot', 'text', (c) => c.notNull())
    .addColumn('users', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('active_user_counts_pk', ['app_id', 'period', 'slot'])
    .execute();
  await backfillActiveUsers(db);

  await db.schema.alterTable('sessions').addColumn('sweep_after', 'text').execute();
  for (const [name, table, column] of CLEAN_UP_INDEXES) await db.schema.createIndex(name).on(table).column(column).execute();

  await db.schema.createIndex('users_app_newest').on('users').columns(['app_id', 'created_at', 'id']).execute();
  // Its prefix: every query it served, the new one serves.
  await db.schema.dropIndex('users_app_created').execute();
}

/**
 * Fills active_users from the sessions and refresh tokens present (a session's start, the last two months it
 * was refreshed in, an earlier-form token's issue), then the counts from the rows. Idempotent: rows present
 * stay, the counts are recomputed whole. Exported for the test of sessions written before this migration.
 */
export async function backfillActiveUsers(db: Kysely<any>): Promise<void> {
  await sql`
    insert into active_users (app_id, user_id, period)
    select app_id, user_id, period from (
      select app_id, user_id, substr(created_at, 1, 7) as period from sessions
      union select app_id, user_id, refreshed_month from sessions where refreshed_month is not null
      union select app_id, user_id, prior_refreshed_month from sessions where prior_refreshed_month is not null
      union select s.app_id, s.user_id, substr(r.created_at, 1, 7) from refresh_tokens r join sessions s on s.id = r.session_id
    ) seen where true
    on conflict (app_id, user_id, period) do nothing`.execute(db);
  await sql`delete from active_user_counts`.execute(db);
  await sql`
    insert into active_user_counts (app_id, period, slot, users)
    select app_id, period, substr(user_id, 1, 1), count(*) from active_users group by app_id, period, substr(user_id, 1, 1)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('users_app_created').on('users').columns(['app_id', 'created_at']).execute();
  await db.schema.dropIndex('users_app_newest').execute();
  for (const [name] of [...CLEAN_UP_INDEXES].reverse()) await db.schema.dropIndex(name).execute();
  await db.schema.alterTable('sessions').dropColumn('sweep_after').execute();
  await db.schema.dropTable('active_user_counts').execute();
  await db.schema.dropTable('active_users').execute();
}
