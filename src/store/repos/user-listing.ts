import { USER_COLUMNS } from '../columns.js';
import { rowLimit } from '../limit.js';
import type { Db } from '../db.js';
import { normalizeEmail, toUser, type User } from './user-row.js';

// GET /v1/users: an app's users newest first, by position (a cursor) and by offset, read from the
// index users_app_newest; and the count of one address.

/** A user's place in the newest-first order: the users after it are older, or as old with a smaller id. */
export interface UserPosition {
  createdAt: string;
  id: string;
}

/**
 * The app's users newest first, after `after` (or from the newest), matching `email` when given: the
 * WHERE and ORDER BY that the index users_app_newest (app_id, created_at, id) answers as one range.
 */
function newestFirst(db: Db, appId: string, options: { email?: string; after?: UserPosition }) {
  let query = db.selectFrom('users').where('app_id', '=', appId);
  if (options.email !== undefined) query = query.where('email_normalized', '=', normalizeEmail(options.email));
  if (options.after) {
    const { createdAt, id } = options.after;
    query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(createdAt, id)));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc');
}

/**
 * The position `skip` users past `after` in the newest-first order (the `skip`-th user's), read from the
 * index alone; undefined when fewer remain. Walks `skip` index entries, so callers bound `skip`.
 */
export async function findUserPosition(db: Db, appId: string, options: { email?: string; after?: UserPosition; skip: number }): Promise<UserPosition | undefined> {
  const row = await userPositionQuery(db, appId, options).executeTakeFirst();
  return row && { createdAt: row.created_at, id: row.id };
}

/** findUserPosition's statement (exported for the test of its plan). */
export const userPositionQuery = (db: Db, appId: string, options: { email?: string; after?: UserPosition; skip: number }) =>
  newestFirst(db, appId, options)
    .select(['created_at', 'id'])
    .limit(rowLimit(1))
    .offset(rowLimit(options.skip - 1));

/**
 * Up to `limit` users after `after`, skipping `offset` first, newest first. The skipped entries are walked
 * in the index only (the ids are chosen there, the rows read for them alone), so an offset costs index
 * entries, not rows.
 */
export async function listUsersPage(db: Db, appId: string, options: { email?: string; after?: UserPosition; offset: number; limit: number }): Promise<User[]> {
  return (await usersPageQuery(db, appId, options).execute()).map(toUser);
}

/** listUsersPage's statement (exported for the test of its plan). */
export const usersPageQuery = (db: Db, appId: string, options: { email?: string; after?: UserPosition; offset: number; limit: number }) =>
  db
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where('app_id', '=', appId)
    .where('id', 'in', newestFirst(db, appId, options).select('id').limit(rowLimit(options.limit)).offset(rowLimit(options.offset)))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');

/** How many users of the app have this email (0 or 1: a probe of the unique index on the address). */
export async function countUsersWithEmail(db: Db, appId: string, email: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .where('app_id', '=', appId)
    .where('email_normalized', '=', normalizeEmail(email))
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
