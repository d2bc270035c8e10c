import { randomBytes, randomUUID } from 'node:crypto';
import { sha256Hex } from '../../src/crypto/ids.js';
import type { Db } from '../../src/store/db.js';

/**
 * A session as the releases before migration 0014 left it: no refresh state on the row, its refresh token
 * (`rt_` + 43 base64url characters) a row of refresh_tokens. `rotated` adds an already rotated token of
 * the same session, rotated at `now`.
 */
export async function openEarlierSession(db: Db, v: { appId: string; userId: string; now: string; expiresAt: string; rotated?: boolean }) {
  const sessionId = randomUUID();
  const token = `rt_${randomBytes(32).toString('base64url')}`;
  await db.insertInto('sessions').values({ id: sessionId, app_id: v.appId, user_id: v.userId, created_at: v.now, expires_at: v.expiresAt, revoked_at: null, refresh_hash: null }).execute();
  const row = (hash: string, rotatedAt: string | null) => ({ token_hash: hash, app_id: v.appId, session_id: sessionId, created_at: v.now, expires_at: v.expiresAt, rotated_at: rotatedAt });
  const rotatedToken = `rt_${randomBytes(32).toString('base64url')}`;
  await db
    .insertInto('refresh_tokens')
    .values(v.rotated ? [row(sha256Hex(rotatedToken), v.now), row(sha256Hex(token), null)] : [row(sha256Hex(token), null)])
    .execute();
  return { sessionId, token, rotatedToken: v.rotated ? rotatedToken : undefined };
}

/** A token of the current form naming the session and generation, with a MAC nobody made: a forgery. */
export function forgedRefreshToken(sessionId: string, generation: number): string {
  const bytes = Buffer.alloc(52);
  bytes.write(sessionId.replaceAll('-', ''), 0, 'hex');
  bytes.writeUInt32BE(generation, 16);
  randomBytes(32).copy(bytes, 20);
  return `rt_${bytes.toString('base64url')}`;
}
