import type { Db } from '../db.js';
import type { Insertable } from 'kysely';
import type { ApiKeysTable } from '../types.js';

export async function insertApiKey(db: Db, row: Insertable<ApiKeysTable>): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** The app's publishable key (there is one per app). */
export async function findPublishableKey(db: Db, appId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select('publishable_key')
    .where('app_id', '=', appId)
    .where('kind', '=', 'publishable')
    .executeTakeFirst();
  return row?.publishable_key ?? undefined;
}

/**
 * Ends every still-live secret key of the app at `endsAt` (now, or after a grace period). A grace only
 * ever shortens: a key already set to die before `endsAt` (an earlier rotation's shorter grace, perhaps
 * because it leaked) keeps its own end.
 */
export async function expireSecretKeys(db: Db, appId: string, endsAt: string): Promise<{ key_end: string | null; created_at: string }[]> {
  const rows = await db
    .updateTable('api_keys')
    .set({ expires_at: endsAt })
    .where('app_id', '=', appId)
    .where('kind', '=', 'secret')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', endsAt)]))
    .returning(['key_end', 'created_at'])
    .execute();
  return rows.map((row) => ({ key_end: row.key_end ?? null, created_at: row.created_at }));
}

/** The app's secret keys still working at `now` (their last 4 characters, when known), newest first. */
export async function listLiveSecretKeys(db: Db, appId: string, now: string): Promise<{ key_end: string | null; created_at: string; expires_at: string | null }[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(['key_end', 'created_at', 'expires_at'])
    .where('app_id', '=', appId)
    .where('kind', '=', 'secret')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map((row) => ({ key_end: row.key_end ?? null, created_at: row.created_at, expires_at: row.expires_at }));
}
