import { sql, type ExpressionBuilder, type Insertable, type Selectable, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import type { Db } from '../db.js';
import type { Database } from '../types.js';

// Single-use rows (an OAuth state, an SSO token, a passkey challenge): `used_at` is null until the row is
// consumed, and the row is dead from `expires_at` on. Consuming is one conditional UPDATE, so of callers
// racing for a row, only one gets it back. Kysely types a statement over a union of tables as one over
// all of them: the casts below name the one table a call is about (every column they use is in each).

export type SingleUseTable = 'oauth_states' | 'sso_tokens' | 'webauthn_challenges';

/** The tables whose rows are found by the SHA-256 of the token their holder presents, and that column. */
const TOKEN_HASH = { oauth_states: 'state_hash', sso_tokens: 'token_hash' } as const;
export type HashedTable = keyof typeof TOKEN_HASH;

/** Stores a new single-use row (unused: used_at null). */
export async function insertSingleUse<T extends HashedTable>(db: Db, table: T, row: Insertable<Database[T]>): Promise<void> {
  await db.insertInto(table as HashedTable).values(row as Insertable<Database[HashedTable]>).execute();
}

/**
 * The row of the token's hash whatever its scope or state, or undefined. It only reads (to learn whose the
 * token is, or to tell another's token from none); consuming goes through consumeLive, which is scoped.
 */
export async function findByTokenHash<T extends HashedTable>(db: Db, table: T, tokenHash: string): Promise<Selectable<Database[T]> | undefined> {
  const row = await db.selectFrom(table as HashedTable).selectAll().where(sql.ref(TOKEN_HASH[table]), '=', tokenHash).executeTakeFirst();
  return row as Selectable<Database[T]> | undefined;
}

/** Not used yet and not expired at `now`: what a single-use row must be to be consumed. */
function unusedLive(eb: ExpressionBuilder<Database, SingleUseTable>, now: string) {
  return eb.and([eb('used_at', 'is', null), eb('expires_at', '>', now)]);
}

/**
 * The UPDATE that consumes a live row of `table` at `now`; the caller names the row and its scope (app or
 * tenant) and reads it back with `returning`, which only the one winning caller gets.
 */
export function consumeLive<T extends SingleUseTable>(db: Db, table: T, now: string): UpdateQueryBuilder<Database, T, T, UpdateResult> {
  const update = db
    .updateTable(table as SingleUseTable)
    .set({ used_at: now })
    .where((eb) => unusedLive(eb, now));
  return update as unknown as UpdateQueryBuilder<Database, T, T, UpdateResult>;
}
