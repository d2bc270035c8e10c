import type { Db } from '../db.js';
import type { SsoTokenRow } from '../types.js';
import { consumeLive, findByTokenHash, insertSingleUse } from './single-use.js';

export const insertSsoToken = (db: Db, row: SsoTokenRow): Promise<void> => insertSingleUse(db, 'sso_tokens', row);

/**
 * The token row whatever its tenant or state, or undefined. Deliberately not scoped by tenant: the
 * exchange must tell "another tenant's token" (403, left unconsumed) from "no such token" (401). It only
 * reads; consuming goes through consumeSsoToken, which is scoped.
 */
export const findSsoTokenByHash = (db: Db, tokenHash: string): Promise<SsoTokenRow | undefined> => findByTokenHash(db, 'sso_tokens', tokenHash);

/**
 * Marks the tenant's token used if it is live (unused, unexpired). The conditional UPDATE is the whole
 * check, so of two concurrent exchanges only one gets the row back.
 */
export async function consumeSsoToken(db: Db, tenantId: string, tokenHash: string, now: string): Promise<SsoTokenRow | undefined> {
  return consumeLive(db, 'sso_tokens', now).where('token_hash', '=', tokenHash).where('tenant_id', '=', tenantId).returningAll().executeTakeFirst();
}
