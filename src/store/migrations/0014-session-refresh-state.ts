import type { Kysely } from 'kysely';

// A session carries its refresh state: the SHA-256 of its current refresh token, the token's generation,
// the times of the last two rotations (reuse of a rotated token: refused within 10 s, theft after) and
// the months of the last two distinct months it was refreshed in (monthly active users). A rotation is
// then one conditional update of this row instead of a claimed row and an inserted one in refresh_tokens,
// which keeps only the tokens of the earlier form until they rotate or expire (docs/security.md).
// Sessions opened before this migration have no hash: their refresh token is still in refresh_tokens,
// and its first rotation moves the session to this form.

const COLUMNS: [name: string, type: 'text' | 'integer'][] = [
  ['refresh_hash', 'text'],
  ['refresh_generation', 'integer'],
  ['rotated_at', 'text'],
  ['prior_rotated_at', 'text'],
  ['refreshed_month', 'text'],
  ['prior_refreshed_month', 'text'],
];

export async function up(db: Kysely<any>): Promise<void> {
  // One column a statement: SQLite adds one at a time.
  for (const [name, type] of COLUMNS) {
    await db.schema
      .alterTable('sessions')
      .addColumn(name, type, (c) => (name === 'refresh_generation' ? c.notNull().defaultTo(0) : c))
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of [...COLUMNS].reverse()) await db.schema.alterTable('sessions').dropColumn(name).execute();
}
