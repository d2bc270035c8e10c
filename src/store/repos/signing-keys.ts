import type { Db } from '../db.js';
import { SIGNING_KEY_COLUMNS } from '../columns.js';
import { rowLimit } from '../limit.js';
import { compiledQuery } from '../compiled.js';
import type { QueryCreator } from 'kysely';
import type { Database, SigningKeyRow } from '../types.js';

export async function insertSigningKey(db: Db, row: SigningKeyRow): Promise<void> {
  await db.insertInto('signing_keys').values(row).execute();
}

/** The kid of the app's current signing key (the one not retired): one row or none. */
export function activeKidStatement(db: QueryCreator<Database>, appId: string) {
  return db.selectFrom('signing_keys').select('kid').where('app_id', '=', appId).where('retired_at', 'is', null).orderBy('version', 'desc').limit(rowLimit(1));
}

export const activeKidQuery = compiledQuery(['appId'], (db, v) => activeKidStatement(db, v.appId));

/** The app's current signing key (the one not retired), or undefined. */
const activeSigningKeyQuery = compiledQuery(['appId'], (db, v) =>
  db.selectFrom('signing_keys').select(SIGNING_KEY_COLUMNS).where('app_id', '=', v.appId).where('retired_at', 'is', null).orderBy('version', 'desc').limit(rowLimit(1)),
);

export async function findActiveSigningKey(db: Db, appId: string): Promise<SigningKeyRow | undefined> {
  const [row] = await activeSigningKeyQuery(db, { appId });
  return row;
}

/** The key with this kid, scoped to the app, or undefined. */
export async function findSigningKeyByKid(db: Db, appId: string, kid: string): Promise<SigningKeyRow | undefined> {
  return db.selectFrom('signing_keys').selectAll().where('app_id', '=', appId).where('kid', '=', kid).executeTakeFirst();
}

/** Keys to publish: the current one and those retired after `retiredSince` (tokens they signed may live). */
export async function listPublishedSigningKeys(db: Db, appId: string, retiredSince: string): Promise<SigningKeyRow[]> {
  return db
    .selectFrom('signing_keys')
    .selectAll()
    .where('app_id', '=', appId)
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredSince)]))
    .orderBy('version', 'desc')
    .execute();
}

export async function maxSigningKeyVersion(db: Db, appId: string): Promise<number> {
  const row = await db
    .selectFrom('signing_keys')
    .select((eb) => eb.fn.max('version').as('v'))
    .where('app_id', '=', appId)
    .executeTakeFirst();
  return Number(row?.v ?? 0);
}

export async function retireSigningKeys(db: Db, appId: string, at: string): Promise<void> {
  await db.updateTable('signing_keys').set({ retired_at: at }).where('app_id', '=', appId).where('retired_at', 'is', null).execute();
}
