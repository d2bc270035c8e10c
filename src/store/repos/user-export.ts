import type { Db } from '../db.js';
import { rowLimit } from '../limit.js';

// Reads of a user's export (docs/privacy.md) that are not rows or objects: each by an index on the
// user, and never a hash or a secret (only the columns the document shows are selected).

export interface ExportedIdentity {
  provider: string;
  subject: string;
  email: string | null;
}

/** The user's OAuth identities (a handful at most: one per provider subject linked). */
export async function listUserIdentities(db: Db, appId: string, userId: string): Promise<ExportedIdentity[]> {
  return db
    .selectFrom('oauth_identities')
    .select(['provider', 'subject', 'email'])
    .where('app_id', '=', appId)
    .where('user_id', '=', userId)
    .orderBy('provider')
    .orderBy('subject')
    .execute();
}

export interface ExportedSession {
  id: string;
  created_at: string;
  rotated_at: string | null;
  revoked_at: string | null;
}

/** A page of the user's sessions (live and dead ones not yet pruned) in id order after `afterId`. */
export async function pageUserSessions(db: Db, appId: string, userId: string, afterId: string | null, limit: number): Promise<ExportedSession[]> {
  let query = db.selectFrom('sessions').select(['id', 'created_at', 'rotated_at', 'revoked_at']).where('app_id', '=', appId).where('user_id', '=', userId);
  if (afterId !== null) query = query.where('id', '>', afterId);
  return query.orderBy('id').limit(rowLimit(limit)).execute();
}
