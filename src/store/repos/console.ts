import type { Db } from '../db.js';
import { wroteOne } from './conditional-write.js';

// The installation's console (docs/management.md): the operators among its users and the first-run setup
// links (SHA-256 of the token only).

/** Whether the console user is an operator. */
export async function isOperator(db: Db, userId: string): Promise<boolean> {
  return (await db.selectFrom('console_operators').select('user_id').where('user_id', '=', userId).executeTakeFirst()) !== undefined;
}

/** Makes the user an operator; false when they were one already. */
export async function insertOperator(db: Db, userId: string, now: string): Promise<boolean> {
  return wroteOne(db.insertInto('console_operators').values({ user_id: userId, created_at: now }).onConflict((oc) => oc.column('user_id').doNothing()).returning('user_id'));
}

export async function deleteOperator(db: Db, userId: string): Promise<boolean> {
  return wroteOne(db.deleteFrom('console_operators').where('user_id', '=', userId).returning('user_id'));
}

/** The operators with their console email, oldest first. */
export async function listOperators(db: Db, consoleAppId: string): Promise<{ user_id: string; email: string | null; created_at: string }[]> {
  return db
    .selectFrom('console_operators')
    .leftJoin('users', (join) => join.onRef('users.id', '=', 'console_operators.user_id').on('users.app_id', '=', consoleAppId))
    .select(['console_operators.user_id', 'users.email', 'console_operators.created_at'])
    .orderBy('console_operators.created_at')
    .execute();
}

export async function countOperators(db: Db): Promise<number> {
  const row = await db.selectFrom('console_operators').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertSetupToken(db: Db, tokenHash: string, now: string, expiresAt: string): Promise<void> {
  await db.insertInto('console_setup_tokens').values({ token_hash: tokenHash, created_at: now, expires_at: expiresAt, used_at: null }).execute();
}

/** Ends every setup link not yet used: an operator was just made, and a link left in a log must not make another. */
export async function deleteUnusedSetupTokens(db: Db): Promise<void> {
  await db.deleteFrom('console_setup_tokens').where('used_at', 'is', null).execute();
}

/** Consumes a setup token in one conditional write: true only for an unused, unexpired one, once. */
export async function consumeSetupToken(db: Db, tokenHash: string, now: string): Promise<boolean> {
  const consume = db
    .updateTable('console_setup_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where((eb) => eb.and([eb('used_at', 'is', null), eb('expires_at', '>', now)]))
    .returning('token_hash');
  return wroteOne(consume);
}
