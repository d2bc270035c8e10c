import type { Db } from '../db.js';
import type { EmailChallengeRow } from '../types.js';

/**
 * The challenge whose link token has this hash, whatever its state (live, used, expired), or undefined.
 * Read-only: it decides which page a person sees and whether the app wants a landing page; consuming
 * stays the one conditional UPDATE of consumeByLink. Like that function, not scoped by a caller-given
 * app id: the link names its app.
 */
export async function findChallengeByLinkHash(db: Db, linkHash: string): Promise<EmailChallengeRow | undefined> {
  return db.selectFrom('email_challenges').selectAll().where('link_hash', '=', linkHash).executeTakeFirst();
}
