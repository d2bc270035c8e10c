import { addSeconds, iso } from '../clock.js';
import { newOpaqueToken, newUuid, sha256Hex } from '../crypto/ids.js';
import type { Deps } from '../deps.js';
import { unauthorized } from '../errors.js';
import * as refreshTokens from '../store/repos/refresh-tokens.js';
import * as sessions from '../store/repos/sessions.js';
import * as sessionTokens from '../store/repos/session-tokens.js';
import { toUser, type User } from '../store/repos/users.js';

export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
/** A rotated refresh token presented within this window is only refused (two tabs racing); later it means theft. */
export const REUSE_GRACE_SECONDS = 10;

export type SessionDeps = Pick<Deps, 'db' | 'clock' | 'keys'>;

/** What every sign-in answers. `expires_at` is the access token's expiry. */
export interface SessionTokens {
  access_token: string;
  refresh_token: string;
  user_id: string;
  session_id: string;
  expires_at: string;
}

/**
 * Starts a session for the user: a session row, a refresh token (stored as its SHA-256) and an access
 * JWT. `accessExpiresAt` overrides the 15-minute lifetime (sign-in tokens).
 */
export async function startSession(deps: SessionDeps, appId: string, user: User, options: { accessExpiresAt?: Date } = {}): Promise<SessionTokens> {
  const now = deps.clock.now();
  const sessionId = newUuid();
  const refreshToken = newOpaqueToken('rt_');
  const { kid } = await sessionTokens.openSession(deps.db, {
    appId,
    sessionId,
    userId: user.id,
    tokenHash: sha256Hex(refreshToken),
    now: iso(now),
    expiresAt: iso(addSeconds(now, REFRESH_TOKEN_SECONDS)),
  });
  return issueAccess(deps, appId, kid, user, sessionId, refreshToken, options.accessExpiresAt);
}

async function issueAccess(deps: SessionDeps, appId: string, kid: string | undefined, user: User, sessionId: string, refreshToken: string, expiresAt?: Date): Promise<SessionTokens> {
  const exp = expiresAt ?? addSeconds(deps.clock.now(), 15 * 60);
  const accessToken = await deps.keys.signAccessToken(
    appId,
    { sub: user.id, sid: sessionId, email: user.email, email_verified: user.emailVerified },
    exp,
    kid,
  );
  return { access_token: accessToken, refresh_token: refreshToken, user_id: user.id, session_id: sessionId, expires_at: iso(exp) };
}

/**
 * Rotates a refresh token: the old one dies, a new one and a fresh access token are issued. A token
 * already rotated answers 401; presented more than REUSE_GRACE_SECONDS after its rotation it also
 * revokes the whole session (the token was stolen, or the client is broken: either way the family ends).
 *
 * With `presumedKeyHash` (the route presumes the request's publishable key names `appId`; KeyGate) the
 * rotation writes nothing unless that key is live, and any miss answers undefined without telling why:
 * the route then runs the guard and calls again without it, which answers the miss exactly.
 */
export async function refreshSession(deps: SessionDeps, appId: string, presented: string): Promise<SessionTokens>;
export async function refreshSession(deps: SessionDeps, appId: string, presented: string, presumedKeyHash: string): Promise<SessionTokens | undefined>;
export async function refreshSession(deps: SessionDeps, appId: string, presented: string, presumedKeyHash?: string): Promise<SessionTokens | undefined> {
  const tokenHash = sha256Hex(presented);
  const now = deps.clock.now();
  const newToken = newOpaqueToken('rt_');
  const rotated = await sessionTokens.rotateRefreshToken(deps.db, {
    appId,
    keyHash: presumedKeyHash ?? null,
    tokenHash,
    newTokenHash: sha256Hex(newToken),
    now: iso(now),
    expiresAt: iso(addSeconds(now, REFRESH_TOKEN_SECONDS)),
  });
  if (!rotated) {
    if (presumedKeyHash !== undefined) return undefined;
    const row = await refreshTokens.findRefreshToken(deps.db, appId, tokenHash);
    if (row?.rotated_at && now.getTime() - new Date(row.rotated_at).getTime() > REUSE_GRACE_SECONDS * 1000) {
      await sessions.revokeSession(deps.db, appId, row.session_id, iso(now));
    }
    throw unauthorized('invalid or expired refresh token', 'invalid_token');
  }
  return issueAccess(deps, appId, rotated.kid, toUser(rotated.user), rotated.sessionId, newToken);
}

/** Revokes a live session of the app; false when it does not exist or was already revoked. */
export async function revokeSession(deps: SessionDeps, appId: string, sessionId: string): Promise<boolean> {
  return sessions.revokeSession(deps.db, appId, sessionId, iso(deps.clock.now()));
}
