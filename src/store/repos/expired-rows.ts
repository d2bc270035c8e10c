import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../db.js';
import type { Database } from '../types.js';

// Clean-up of single-use rows whose use is over. Maintenance spans every app by nature: these are the
// only deletes not scoped by app id, and they only ever touch rows that are already dead. Each call is one
// bounded batch: a range of an index (migration 0022) picks at most `batch` keys, and only those rows are
// deleted, so no statement or transaction grows with the table; the caller repeats until a batch comes
// back short.

/** The tables the clean-up deletes from by one time column, with their key and that column. */
const BY_TIME = {
  hashcash_spent: { key: 'challenge_hash', time: 'expires_at' },
  bot_auth_replays: { key: 'signature_hash', time: 'expires_at' },
  sso_tokens: { key: 'token_hash', time: 'expires_at' },
  email_challenges: { key: 'id', time: 'created_at' },
  oauth_states: { key: 'state_hash', time: 'expires_at' },
  refresh_tokens: { key: 'token_hash', time: 'expires_at' },
  rotated_refresh_tokens: { key: 'token_hash', time: 'rotated_at', table: 'refresh_tokens' },
  mfa_challenges: { key: 'id', time: 'expires_at' },
  webauthn_challenges: { key: 'id', time: 'expires_at' },
  // By the mail_outbox_due index (its first column): rows still being retried have no gave_up_at.
  given_up_mail: { key: 'id', time: 'gave_up_at', table: 'mail_outbox' },
} as const;

export type TimedRows = keyof typeof BY_TIME;

/**
 * Deletes up to `batch` rows whose time column is before `before`: spent hashcash challenges and bot
 * signatures past their expiry, SSO tokens and OAuth states past theirs, emailed codes and links by age,
 * refresh tokens of the earlier form past their expiry or rotated long ago, mail given up on long ago.
 * Answers how many it deleted.
 */
export async function deleteTimedRows(db: Db, rows: TimedRows, before: string, batch: number): Promise<number> {
  const result = await timedRowsDelete(rows, before, batch).execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** deleteTimedRows' statement (exported for the test of its plan). */
export function timedRowsDelete(rows: TimedRows, before: string, batch: number) {
  const spec = BY_TIME[rows];
  const table = sql.table('table' in spec ? spec.table : rows);
  const key = sql.ref(spec.key);
  return sql`delete from ${table} where ${key} in (select ${key} from ${table} where ${sql.ref(spec.time)} < ${before} limit ${sql.lit(batch)})`;
}

export const TIMED_ROWS = Object.keys(BY_TIME) as TimedRows[];

/** A session the clean-up looks at, with what decides whether it is dead. */
export interface DueSession {
  id: string;
  expires_at: string;
  revoked_at: string | null;
}

/**
 * Up to `batch` sessions due for a look: `sweep_after` before `dueBefore` (from the index sessions_sweep),
 * or, with `unswept`, sessions never looked at (sweep_after null: written before migration 0022).
 */
export async function findDueSessions(db: Db, dueBefore: string, batch: number, unswept = false): Promise<DueSession[]> {
  return dueSessionsQuery(db, dueBefore, batch, unswept).execute();
}

/** findDueSessions' statement (exported for the test of its plan). */
export const dueSessionsQuery = (db: Db, dueBefore: string, batch: number, unswept = false) =>
  db
    .selectFrom('sessions')
    .select(['id', 'expires_at', 'revoked_at'])
    .where((eb) => (unswept ? eb('sweep_after', 'is', null) : eb('sweep_after', '<', dueBefore)))
    .limit(batch);

/**
 * Deletes the sessions `ids` that are dead before `deadBefore` (revoked or expired then; checked again here,
 * in the delete itself), their refresh tokens of the earlier form first. Answers how many sessions it deleted.
 */
export async function deleteDeadSessions(db: Db, ids: string[], deadBefore: string): Promise<{ sessions: number; refreshTokens: number }> {
  if (ids.length === 0) return { sessions: 0, refreshTokens: 0 };
  const dead = (eb: ExpressionBuilder<Database, 'sessions'>) => eb.or([eb('revoked_at', '<', deadBefore), eb('expires_at', '<', deadBefore)]);
  const tokens = await db
    .deleteFrom('refresh_tokens')
    .where('session_id', 'in', db.selectFrom('sessions').select('id').where('id', 'in', ids).where(dead))
    .executeTakeFirst();
  const sessions = await db.deleteFrom('sessions').where('id', 'in', ids).where(dead).executeTakeFirst();
  return { sessions: Number(sessions.numDeletedRows), refreshTokens: Number(tokens.numDeletedRows) };
}

/**
 * The live sessions `ids` are looked at again when they may next be dead: at their revocation, or else at
 * their expiry as it is now (a refresh moves expires_at, never sweep_after, so a refresh changes no index).
 */
export async function postponeSessions(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('sessions')
    .set((eb) => ({ sweep_after: eb.fn.coalesce('revoked_at', 'expires_at') }))
    .where('id', 'in', ids)
    .execute();
}
