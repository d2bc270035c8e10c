import { compiledQuery } from '../compiled.js';
import type { Db, RunNow } from '../db.js';

// Monthly active users, kept as they happen (migration 0022): a user's first session start or refresh of a
// month in an app inserts (app, user, month) into active_users, and only the write that inserted it adds
// one to the (app, month) count, in the same transaction. Billing then reads at most 16 count rows per app
// instead of every session. Sessions call these from store/repos/session-tokens.ts.

/** The slot of a user's count row: the first character of the id (a UUID's first hex digit). */
export const slotOf = (userId: string) => userId.slice(0, 1);

/** (app, user, month) unless present; answers a row only when this call inserted it. */
export const markActiveQuery = compiledQuery(['appId', 'userId', 'period'], (db, v) =>
  db
    .insertInto('active_users')
    .values({ app_id: v.appId, user_id: v.userId, period: v.period })
    .onConflict((oc) => oc.columns(['app_id', 'user_id', 'period']).doNothing())
    .returning('period'),
);

/** One more active user in the (app, month) count's slot. */
export const countActiveQuery = compiledQuery(['appId', 'period', 'slot'], (db, v) =>
  db
    .insertInto('active_user_counts')
    .values({ app_id: v.appId, period: v.period, slot: v.slot, users: 1 })
    .onConflict((oc) => oc.columns(['app_id', 'period', 'slot']).doUpdateSet((eb) => ({ users: eb('active_user_counts.users', '+', 1) }))),
);

/** Marks the user active in the app's month through Kysely (a transaction's rare paths); true when newly counted. */
export async function markActiveUser(db: Db, values: { appId: string; userId: string; period: string }): Promise<boolean> {
  const [inserted] = await markActiveQuery(db, values);
  if (!inserted) return false;
  await countActiveQuery(db, { appId: values.appId, period: values.period, slot: slotOf(values.userId) });
  return true;
}

/**
 * Monthly active users of the tenant's apps in `period` ('YYYY-MM'): the sum of their kept counts, read
 * through the tenant's apps (applications_tenant) and each app's count rows (the primary key). User ids
 * are unique across apps, so one person in two apps counts twice.
 */
export async function sumActiveUsers(db: Db, tenantId: string, period: string): Promise<number> {
  const row = await sumActiveUsersQuery(db, tenantId, period).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** sumActiveUsers' statement (exported for the test of its plan). */
export const sumActiveUsersQuery = (db: Db, tenantId: string, period: string) =>
  db
    .selectFrom('active_user_counts')
    .innerJoin('applications', 'applications.id', 'active_user_counts.app_id')
    .where('applications.tenant_id', '=', tenantId)
    .where('active_user_counts.period', '=', period)
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('active_user_counts.users'), eb.val(0)).as('n'));

/**
 * Deletes up to `batch` active_users rows of months before `period` (the counts stay: they are the
 * figures; the rows only keep a month's count exact while the month can still be written). Answers how
 * many it deleted; fewer than `batch` means none are left.
 */
export async function deleteActiveUsersBefore(db: Db, period: string, batch: number): Promise<number> {
  const result = await db
    .deleteFrom('active_users')
    .where((eb) =>
      eb(
        eb.refTuple('app_id', 'user_id', 'period'),
        'in',
        eb.selectFrom('active_users').select(['app_id', 'user_id', 'period']).where('period', '<', period).limit(batch) as any,
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** SQLite, inside sqliteTransaction (store/repos/session-tokens.ts): marks the user active in `period`, and counts them when this inserted the mark. */
export const markActiveNow = (run: RunNow, db: Db, appId: string, userId: string, period: string): void => {
  if (run(markActiveQuery.statement(db, { appId, userId, period })).length === 0) return;
  run(countActiveQuery.statement(db, { appId, period, slot: slotOf(userId) }));
};
