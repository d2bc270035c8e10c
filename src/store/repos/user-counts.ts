import type { Db } from '../db.js';
import { slotOf } from './active-users.js';

// The kept number of an app's users (migration 0027), so GET /v1/users answers `total` without counting a
// million index entries. Only store/repos/users.ts calls changeUserCount, in the transaction of the insert or
// delete it counts; the app's purge deletes the count rows with the app.

/** Adds `delta` to the slot of `userId` in the app's count (the row is made on the slot's first user). */
export async function changeUserCount(db: Db, appId: string, userId: string, delta: 1 | -1): Promise<void> {
  await db
    .insertInto('user_counts')
    .values({ app_id: appId, slot: slotOf(userId), users: delta })
    .onConflict((oc) => oc.columns(['app_id', 'slot']).doUpdateSet((eb) => ({ users: eb('user_counts.users', '+', delta) })))
    .execute();
}

/** How many users the app has: the sum of its (at most 16) count rows. */
export async function sumUserCount(db: Db, appId: string): Promise<number> {
  const row = await db
    .selectFrom('user_counts')
    .select((eb) => eb.fn.sum<number | string | null>('users').as('n'))
    .where('app_id', '=', appId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
