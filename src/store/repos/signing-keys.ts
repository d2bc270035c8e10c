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

/**
 * The app (by id, or by its verified domain) and the public JWKs to publish for it: the current key and
 * those retired after `retiredSince` (tokens they signed may live), newest first. One statement: a row per
 * key, or one row without a key for an app that has none, or no row when there is no such app.
 */
function publishedKeysOf(db: Db, retiredSince: string) {
  return db
    .selectFrom('applications')
    .leftJoin('signing_keys', (join) =>
      join.onRef('signing_keys.app_id', '=', 'applications.id').on((eb) => eb.or([eb('signing_keys.retired_at', 'is', null), eb('signing_keys.retired_at', '>', retiredSince)])),
    )
    .select('signing_keys.public_jwk')
    .where('applications.deleted_at', 'is', null)
    .orderBy('signing_keys.version', 'desc');
}

const publishedKeysByIdQuery = compiledQuery(['appId', 'retiredSince'], (db, v) => publishedKeysOf(db, v.retiredSince).where('applications.id', '=', v.appId));
const publishedKeysByDomainQuery = compiledQuery(['domain', 'retiredSince'], (db, v) => publishedKeysOf(db, v.retiredSince).where('applications.domain', '=', v.domain));

/** The public JWKs (JSON text) an app publishes, newest first; undefined when there is no such app. */
export async function findPublishedKeys(db: Db, app: { appId: string } | { domain: string }, retiredSince: string): Promise<string[] | undefined> {
  const rows = 'appId' in app ? await publishedKeysByIdQuery(db, { appId: app.appId, retiredSince }) : await publishedKeysByDomainQuery(db, { domain: app.domain, retiredSince });
  if (rows.length === 0) return undefined;
  return rows.flatMap((row) => (row.public_jwk === null ? [] : [row.public_jwk]));
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
