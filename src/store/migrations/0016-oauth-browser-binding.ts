import type { Kysely } from 'kysely';

// OAuth login CSRF (issue 35, docs/oauth.md): each state row carries the SHA-256 of the random
// value authorize put in the browser's cookie; the callback completes only in the browser holding it.
// States in flight when this runs have none, and fail as an unknown state would (they live 10 minutes).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_states').addColumn('browser_binding_hash', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_states').dropColumn('browser_binding_hash').execute();
}
