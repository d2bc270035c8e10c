import type { Db } from '../db.js';

/**
 * Remembers a bot-auth signature until its timestamp leaves the tolerance window. The primary key makes
 * a second use fail with a unique violation (the caller answers 401); after expires_at the timestamp
 * check refuses the signature anyway, so expired rows may be deleted.
 */
export async function insertBotAuthReplay(db: Db, appId: string, signatureHash: string, expiresAt: string): Promise<void> {
  await db.insertInto('bot_auth_replays').values({ signature_hash: signatureHash, app_id: appId, expires_at: expiresAt }).execute();
}
