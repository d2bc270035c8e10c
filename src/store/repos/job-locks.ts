import type { Db } from '../db.js';
import { wroteOne } from './conditional-write.js';

/**
 * Takes the named lease until `until` when it is free or expired; true for the one caller that wins.
 * Portable: an INSERT that only the first can make, else an UPDATE that only matches an expired lease.
 */
export async function acquireJobLock(db: Db, name: string, holder: string, now: string, until: string): Promise<boolean> {
  const inserted = await wroteOne(db.insertInto('job_locks').values({ name, holder, locked_until: until }).onConflict((oc) => oc.column('name').doNothing()).returning('name'));
  return inserted || wroteOne(db.updateTable('job_locks').set({ holder, locked_until: until }).where('name', '=', name).where('locked_until', '<=', now).returning('name'));
}

/** Ends the lease early when `holder` still has it. */
export async function releaseJobLock(db: Db, name: string, holder: string, now: string): Promise<void> {
  await db.updateTable('job_locks').set({ locked_until: now }).where('name', '=', name).where('holder', '=', holder).execute();
}

/** Extends the lease to `until` while `holder` still has it; false when it was lost (expired and taken). */
export async function renewJobLock(db: Db, name: string, holder: string, until: string): Promise<boolean> {
  return wroteOne(db.updateTable('job_locks').set({ locked_until: until }).where('name', '=', name).where('holder', '=', holder).returning('name'));
}

/** The lease's holder and end, or undefined when the job never ran. */
export async function findJobLock(db: Db, name: string): Promise<{ holder: string; locked_until: string } | undefined> {
  return db.selectFrom('job_locks').select(['holder', 'locked_until']).where('name', '=', name).executeTakeFirst();
}

/** Takes the lease from `previous` (a holder known to be dead); true for the one caller that wins. */
export async function takeJobLockFrom(db: Db, name: string, previous: string, holder: string, until: string): Promise<boolean> {
  return wroteOne(db.updateTable('job_locks').set({ holder, locked_until: until }).where('name', '=', name).where('holder', '=', previous).returning('name'));
}
