import type { Kysely } from 'kysely';

// Issue 45 finding 5 (SSO login CSRF): a hop started by the destination page carries a nonce that page
// keeps; the bridge binds the token to the nonce's SHA-256, and the exchange must present the same nonce.
// Tokens of hops without a nonce (and rows written before this migration) have none.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sso_tokens').addColumn('nonce_hash', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sso_tokens').dropColumn('nonce_hash').execute();
}
