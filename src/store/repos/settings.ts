import type { Db } from '../db.js';
import { wroteOne } from './conditional-write.js';

// Installation-wide settings (not per app): the master key's check value.

/** The value of a setting, or undefined when it was never set. */
export async function findSetting(db: Db, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

/** Sets a setting unless it is set already (the first writer wins); true when this call wrote it. */
export async function insertSettingIfAbsent(db: Db, name: string, value: string, now: string): Promise<boolean> {
  return wroteOne(db.insertInto('settings').values({ name, value, updated_at: now }).onConflict((oc) => oc.column('name').doNothing()).returning('name'));
}

/** Sets a setting, whether or not it was set. */
export async function upsertSetting(db: Db, name: string, value: string, now: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ name, value, updated_at: now })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: now }))
    .execute();
}
