import type { Db } from '../db.js';
import type { OAuthStateRow } from '../types.js';
import { consumeLive, findByTokenHash, insertSingleUse } from './single-use.js';

export const insertOAuthState = (db: Db, row: OAuthStateRow): Promise<void> => insertSingleUse(db, 'oauth_states', row);

/**
 * The state row whatever its app or use, or undefined. The callback carries no app (the provider sends
 * the browser back with the state alone), so the state is what names the app. It only reads, to choose
 * where an error goes; consuming goes through consumeOAuthState.
 */
export const findOAuthStateByHash = (db: Db, stateHash: string): Promise<OAuthStateRow | undefined> => findByTokenHash(db, 'oauth_states', stateHash);

/** Marks the app's state used if it is live; the conditional UPDATE is the whole check (single use). */
export async function consumeOAuthState(db: Db, appId: string, stateHash: string, now: string): Promise<OAuthStateRow | undefined> {
  return consumeLive(db, 'oauth_states', now).where('state_hash', '=', stateHash).where('app_id', '=', appId).returningAll().executeTakeFirst();
}

/** Clean-up: states past their expiry are dead whether used or not. */
export async function deleteExpiredOAuthStates(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('oauth_states').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
