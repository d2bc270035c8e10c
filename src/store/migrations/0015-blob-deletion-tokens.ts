import type { Kysely } from 'kysely';

// Each blob_deletions row carries the token of the write that queued it last. A deleter removes the row
// only where the token is still the one it read: a blob queued again meanwhile (by an upload abandoned
// after the sweep took its queue row and deleted its blob, and whose store write landed again) keeps its
// row instead of losing it to the earlier deleter (docs/storage.md, "Crashes and store failures").
// Rows queued before this migration carry the empty token.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('blob_deletions')
    .addColumn('token', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('blob_deletions').dropColumn('token').execute();
}
