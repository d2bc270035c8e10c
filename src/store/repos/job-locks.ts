import type { Db } from '../db.js';

/**
 * Takes the named lease until `until` when it is free or expired; true for the one caller that wins.
 * Portable: an INSERT that only the first can make, else an UPDATE that only matches an expired lease.
 */
export async function acquireJobLock(db: Db, name: string, holder: string, now: string, until: string): Promise<boolean> {
  const inserted = await db
    .insertInto('job_locks')
    .values({ name, holder, locked_until: until })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('name')
    .executeTakeFirst();
  if (inserted) return true;
  const taken = await db
    .updateTable('job_locks')
    .set({ holder, locked_until: until })
    .where('name', '=', name)
    .where('locked_until', '<=', now)
    .returning('name')
    .executeTakeFirst();
  return taken !== undefined;
}

/** Ends the lease early when `holder` still has it. */
export async function releaseJobLock(db: Db, name: string, holder: string, now: string): Promise<void> {
  await db.updateTable('job_locks').set({ locked_until: now }).where('name', '=', name).where('holder', '=', holder).execute();
}
