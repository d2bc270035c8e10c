import type { ExpressionBuilder, UpdateQueryBuilder, UpdateResult } from 'kysely';
import type { Db } from '../db.js';
import type { Database } from '../types.js';

// Single-use rows (an OAuth state, an SSO token, a passkey challenge): `used_at` is null until the row is
// consumed, and the row is dead from `expires_at` on. Consuming is one conditional UPDATE, so of callers
// racing for a row, only one gets it back.

export type SingleUseTable = 'oauth_states' | 'sso_tokens' | 'webauthn_challenges';

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
  // Kysely types an UPDATE of a union of tables as one of all of them: the cast names the one table it is
  // (every column written or compared above is a column of each).
  return update as unknown as UpdateQueryBuilder<Database, T, T, UpdateResult>;
}
