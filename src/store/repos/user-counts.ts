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

/** Adds the users of `userIds`, just inserted in `db`'s transaction, to the app's count: one statement per slot. */
export async function addUserCounts(db: Db, appId: string, userIds: string[]): Promise<void> {
  const bySlot = new Map<string, number>();
  for (const id of userIds) bySlot.set(slotOf(id), (bySlot.get(slotOf(id)) ?? 0) + 1);
  // In slot order, so two imports into one app lock the count rows in one order (no deadlock on PostgreSQL).
  for (const [slot, added] of [...bySlot].sort(([a], [b]) => (a < b ? -1 : 1))) {
    await db
      .insertInto('user_counts')
      .values({ app_id: appId, slot, users: added })
      .onConflict((oc) => oc.columns(['app_id', 'slot']).doUpdateSet((eb) => ({ users: eb('user_counts.users', '+', added) })))
      .execute();
  }
}
