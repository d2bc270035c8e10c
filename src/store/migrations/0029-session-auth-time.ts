import type { Kysely } from 'kysely';

// When a session's user last proved who they are (docs/auth.md, `auth_time`): set when the session opens,
// kept by every refresh, carried in each of its access tokens as `auth_time`. The rules that need a recent
// sign-in read it, never the token's `iat` (which every refresh renews). Sessions opened before this
// migration have none: their start (created_at) is read instead, so no backfill is needed.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('authenticated_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('authenticated_at').execute();
}
