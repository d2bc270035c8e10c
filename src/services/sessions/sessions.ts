import { addSeconds, iso } from '../../clock.js';
import { newUuid, sha256Hex } from '../../crypto/ids.js';
import { isEarlierRefreshToken, MAX_GENERATION, mintRefreshToken, readRefreshToken, wasIssued } from '../../crypto/refresh-tokens.js';
import type { Deps } from '../../deps.js';
import { forbidden, unauthorized } from '../../errors.js';
import * as refreshTokens from '../../store/repos/refresh-tokens.js';
import * as sessionTokens from '../../store/repos/session-tokens.js';
import * as sessionOpening from '../../store/repos/session-opening.js';
import { prepareEvent } from '../events/record.js';
import { endSessionBySystem, revokeOneSession } from './revocations.js';
import { eventOf, type EventContext } from '../events/types.js';
import * as users from '../../store/repos/users.js';
import { toUser, type User } from '../../store/repos/users.js';
import type { Db } from '../../store/db.js';
import { inTransaction } from '../../store/transaction.js';
import { aalOf, joinAmr, splitAmr, type Amr } from '../mfa/assurance.js';
import { MAX_ACCESS_TOKEN_BYTES, renderClaims } from './token-claims.js';
import { findActiveOrganization } from '../../store/repos/active-organization.js';
import type { OrgClaims } from '../apps/keys.js';
import { permissionsOf } from '../organizations/permissions.js';
import { recordingBanRefusal } from './sign-in-failed.js';

export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
/** A rotated refresh token presented within this window is only refused (two tabs racing); later it means theft. */
export const REUSE_GRACE_SECONDS = 10;

export type SessionDeps = Pick<Deps, 'db' | 'clock' | 'keys' | 'secrets'> & Partial<Pick<Deps, 'log'>>;

/** What every sign-in answers. `expires_at` is the access token's expiry. */
export interface SessionTokens {
  access_token: string;
  refresh_token: string;
  user_id: string;
  session_id: string;
  expires_at: string;
}

/** Where a request comes from, kept with the sessions it opens ("where you're signed in"). */
export interface ClientInfo {
  userAgent: string | null;
  ip: string | null;
}

/**
 * Starts a session for the user: a session row, a refresh token (stored as its SHA-256) and an access
 * JWT. `accessExpiresAt` overrides the 15-minute lifetime (sign-in tokens); `client` is kept on the
 * session for the user's list of sessions; `amr`, how the user proved who they are, is kept on it too
 * (every access token of the session carries it, and the aal it gives).
 */
export async function startSession(
  deps: SessionDeps,
  app: { id: string; tenantId: string },
  user: User,
  options: { amr?: readonly Amr[]; accessExpiresAt?: Date; client?: ClientInfo; inWrite?: InWrite; opening: SessionOpening },
): Promise<SessionTokens> {
  const { method, provider } = options.opening;
  const context = options.opening.context ?? { actor: { type: 'user' as const, id: user.id }, ip: options.client?.ip ?? null, userAgent: options.client?.userAgent ?? null };
  return recordingBanRefusal(deps, app, { userId: user.id, method, provider, context }, () => openSessionFor(deps, app, user, options, context));
}

async function openSessionFor(deps: SessionDeps, app: { id: string; tenantId: string }, user: User, options: Parameters<typeof startSession>[3], context: EventContext): Promise<SessionTokens> {
  refuseBanned(user);
  const appId = app.id;
  const now = deps.clock.now();
  const sessionId = newUuid();
  const refreshToken = mintRefreshToken(deps.secrets.refreshTokens[0]!, sessionId, 0);
  const { method, provider } = options.opening;
  const data = { session_id: sessionId, amr: [...new Set(options.amr ?? [])], method, ...(provider ? { provider } : {}) };
  const { row, deliveries } = prepareEvent(eventOf(context, { type: 'session.created', tenantId: app.tenantId, appId, userId: user.id, data }), now);
  const open = (db: Db) => sessionOpening.openSession(db, {
    event: { row, deliveries: deliveries! },
    appId,
    sessionId,
    userId: user.id,
    tokenHash: sha256Hex(refreshToken),
    now: iso(now),
    expiresAt: iso(addSeconds(now, REFRESH_TOKEN_SECONDS)),
    userAgent: options.client?.userAgent ?? null,
    ip: options.client?.ip ?? null,
    amr: joinAmr(options.amr ?? []),
  });
  // Banned (or deleted) since the caller read the user: the statement opened nothing, and inWrite's write rolls back.
  const openOrRefuse = async (db: Db) => {
    const opened = await open(db);
    if (!opened) throw (await users.findUserById(db, appId, user.id)) ? forbidden('this user is banned from the application', 'user_banned') : unauthorized('not authenticated');
    return opened;
  };
  // The access token is signed after the commit: signing may read the app's key, which SQLite's one connection cannot do mid-transaction.
  const inWrite = options.inWrite;
  const { kid, tokenClaims } = inWrite ? await inTransaction(deps.db, async (trx) => (await inWrite(trx), openOrRefuse(trx))) : await openOrRefuse(deps.db);
  const access = { kid, tokenClaims, amr: [...(options.amr ?? [])], authTime: unixSeconds(now) };
  return issueAccess(deps, appId, access, user, sessionId, refreshToken, options.accessExpiresAt);
}

/**
 * How a sign-in proved the user (session.created's `method`, docs/events.md); `context` when the event's actor is
 * not the user from the session's client (a sign-in token: the secret key's request).
 */
export interface SessionOpening {
  method: 'password' | 'code' | 'magic_link' | 'passkey' | 'oauth' | 'sso' | 'bot' | 'sign_in_token' | 'reset';
  provider?: string;
  context?: EventContext;
}

/** A write that commits with the session (or MFA challenge) a sign-in opens, or not at all: an imported hash's replacement. */
export type InWrite = (trx: Db) => Promise<void>;

/** An ISO time or a Date as JWT NumericDate (whole seconds). */
export const unixSeconds = (time: Date | string) => Math.floor(new Date(time).getTime() / 1000);

/** A banned user (PATCH /v1/users/{id} {banned: true}) opens no session: 403 `user_banned`, whichever way they sign in. */
export function refuseBanned(user: Pick<User, 'banned'>): void {
  if (user.banned) throw forbidden('this user is banned from the application', 'user_banned');
}

/** What an access token is signed with besides its user and session: the session's and the app's (one statement read them). */
interface AccessBasis {
  kid: string | undefined;
  tokenClaims: string | null;
  amr: string[];
  authTime: number | undefined;
  /** The session's active organisation (docs/organizations.md), read when the session has one. */
  org?: OrgClaims;
}

/** The org_* claims of the session's active organisation, or undefined (none, removed, deleted, or organisations off). */
async function orgClaims(deps: SessionDeps, appId: string, sessionId: string): Promise<OrgClaims | undefined> {
  const active = await findActiveOrganization(deps.db, appId, sessionId);
  return active && { id: active.id, slug: active.slug, role: active.role, permissions: permissionsOf(active.role, active.rolePermissions) };
}

async function issueAccess(
  deps: SessionDeps,
  appId: string,
  basis: AccessBasis,
  user: User,
  sessionId: string,
  refreshToken: string,
  expiresAt?: Date,
): Promise<SessionTokens> {
  const exp = expiresAt ?? addSeconds(deps.clock.now(), 15 * 60);
  const accessToken = await signAccess(deps, appId, basis, user, sessionId, exp);
  return { access_token: accessToken, refresh_token: refreshToken, user_id: user.id, session_id: sessionId, expires_at: iso(exp) };
}

/**
 * Rotates a refresh token: the old one dies, a new one and a fresh access token are issued. A token
 * already rotated answers 401; presented more than REUSE_GRACE_SECONDS after its rotation it also
 * revokes the whole session (the token was stolen, or the client is broken: either way the family ends).
 * A token names its session and generation (crypto/refresh-tokens.ts), so the rotation is one
 * conditional write of the session row; a token of the earlier form (refresh_tokens) rotates once into
 * its session.
 *
 * With `presumedKeyHash` (the route presumes the request's publishable key names `appId`; KeyGate) the
 * rotation writes nothing unless that key is live, and any miss answers undefined without telling why:
 * the route then runs the guard and calls again without it, which answers the miss exactly.
 */
export async function refreshSession(deps: SessionDeps, appId: string, presented: string): Promise<SessionTokens>;
export async function refreshSession(deps: SessionDeps, appId: string, presented: string, presumedKeyHash: string): Promise<SessionTokens | undefined>;
export async function refreshSession(deps: SessionDeps, appId: string, presented: string, presumedKeyHash?: string): Promise<SessionTokens | undefined> {
  const token = readRefreshToken(presented);
  if (!token) {
    if (presumedKeyHash !== undefined) return undefined;
    if (isEarlierRefreshToken(presented)) return refreshEarlierToken(deps, appId, presented);
    throw invalidRefreshToken();
  }
  const now = deps.clock.now();
  // MAX_GENERATION rotations (one a second for 68 years) is the end of the family: sign in again.
  const generation = token.generation + 1;
  if (generation > MAX_GENERATION) {
    if (presumedKeyHash !== undefined) return undefined;
    throw invalidRefreshToken();
  }
  const newToken = mintRefreshToken(deps.secrets.refreshTokens[0]!, token.sessionId, generation);
  const rotated = await sessionTokens.rotateRefreshToken(deps.db, {
    appId,
    keyHash: presumedKeyHash ?? null,
    sessionId: token.sessionId,
    tokenHash: sha256Hex(presented),
    newTokenHash: sha256Hex(newToken),
    generation,
    now: iso(now),
    month: iso(now).slice(0, 7),
    expiresAt: iso(addSeconds(now, REFRESH_TOKEN_SECONDS)),
  });
  if (!rotated) {
    if (presumedKeyHash !== undefined) return undefined;
    const state = await sessionTokens.findRefreshState(deps.db, appId, token.sessionId);
    // Reuse is told from a forgery by the MAC: a made-up token naming a real session (its id is in every
    // access token) is only refused, never ends the session.
    if (state && token.generation < state.refresh_generation && wasIssued(deps.secrets.refreshTokens, token) && isTheft(state, token.generation, now)) {
      await endSessionBySystem(deps.db, appId, token.sessionId, 'reuse_detected', now);
    }
    // The ban revoked the session: its refresh token says why (a forged token naming the session learns nothing).
    if (state?.banned === 1 && wasIssued(deps.secrets.refreshTokens, token)) refuseBanned({ banned: true });
    throw invalidRefreshToken();
  }
  // The session's sign-in time, not the refresh's: a refresh proves holding a token, not who the user is.
  const user = toUser(rotated.user);
  if (user.banned) {
    // Banned while this rotation ran: the session ends here, and the new token is never handed out.
    await endSessionBySystem(deps.db, appId, token.sessionId, 'banned', now);
    refuseBanned(user);
  }
  // Only a session with an active organisation reads it (one more statement); every other refresh is as before.
  const org = rotated.activeOrgId ? await orgClaims(deps, appId, token.sessionId) : undefined;
  const basis = { kid: rotated.kid, tokenClaims: rotated.tokenClaims, amr: splitAmr(rotated.amr), authTime: unixSeconds(rotated.authenticatedAt), org };
  return issueAccess(deps, appId, basis, user, token.sessionId, newToken);
}

/**
 * Whether presenting the issued token of `generation`, now rotated away, is theft: it was rotated more
 * than REUSE_GRACE_SECONDS ago. The row keeps the times of its last two rotations, which rotated the
 * tokens one and two generations behind; a token three or more behind is always theft. Its own rotation
 * time is not kept, and two tabs racing with one token never leave it that far behind, while a thief
 * who refreshes the stolen line often could keep the rotation before last inside the grace forever.
 */
function isTheft(state: { refresh_generation: number; rotated_at: string | null; prior_rotated_at: string | null }, generation: number, now: Date): boolean {
  const behind = state.refresh_generation - generation;
  const rotatedAt = behind === 1 ? state.rotated_at : behind === 2 ? state.prior_rotated_at : undefined;
  if (behind > 2 || !rotatedAt) return true;
  return now.getTime() - new Date(rotatedAt).getTime() > REUSE_GRACE_SECONDS * 1000;
}

/** A token of the earlier form: its row in refresh_tokens is claimed and its session moves to the session-held form. */
async function refreshEarlierToken(deps: SessionDeps, appId: string, presented: string): Promise<SessionTokens> {
  const tokenHash = sha256Hex(presented);
  const now = deps.clock.now();
  const row = await refreshTokens.findRefreshToken(deps.db, appId, tokenHash);
  if (!row) throw invalidRefreshToken();
  const newToken = mintRefreshToken(deps.secrets.refreshTokens[0]!, row.session_id, 1);
  const rotated = await sessionTokens.rotateEarlierRefreshToken(deps.db, {
    appId,
    sessionId: row.session_id,
    tokenHash,
    newTokenHash: sha256Hex(newToken),
    generation: 1,
    now: iso(now),
    month: iso(now).slice(0, 7),
    expiresAt: iso(addSeconds(now, REFRESH_TOKEN_SECONDS)),
  });
  if (!rotated) {
    if (row.rotated_at && now.getTime() - new Date(row.rotated_at).getTime() > REUSE_GRACE_SECONDS * 1000) {
      await endSessionBySystem(deps.db, appId, row.session_id, 'reuse_detected', now);
    }
    throw invalidRefreshToken();
  }
  const basis = { kid: rotated.kid, tokenClaims: rotated.tokenClaims, amr: splitAmr(rotated.amr), authTime: unixSeconds(rotated.authenticatedAt) };
  return issueAccess(deps, appId, basis, toUser(rotated.user), row.session_id, newToken);
}

const invalidRefreshToken = () => unauthorized('invalid or expired refresh token', 'invalid_token');

/** Revokes a live session of the app; false when it does not exist or was already revoked. */
export async function revokeSession(deps: SessionDeps, app: { id: string; tenantId: string }, sessionId: string, context: EventContext): Promise<boolean> {
  const now = deps.clock.now();
  return inTransaction(deps.db, (trx) => revokeOneSession(trx, sessionId, { app, reason: 'revoked', context, now }));
}

/**
 * A new access token for a live session whose amr just grew (a second factor enrolled from it): the
 * session row already holds the new amr, so its later refreshes answer the same. `authTime` is the
 * session's, unchanged: enrolling a factor proves the new factor, not again who the user is.
 */
export async function reissueAccess(
  deps: SessionDeps,
  appId: string,
  user: User,
  sessionId: string,
  amr: string[],
  authTime: number | undefined,
  tokenClaims: string | null,
): Promise<{ access_token: string; expires_at: string }> {
  const exp = addSeconds(deps.clock.now(), 15 * 60);
  const org = await orgClaims(deps, appId, sessionId);
  const accessToken = await signAccess(deps, appId, { kid: undefined, tokenClaims, amr, authTime, org }, user, sessionId, exp);
  return { access_token: accessToken, expires_at: iso(exp) };
}

/**
 * Signs the access token with the app's custom claims, if it has a template. A result past
 * MAX_ACCESS_TOKEN_BYTES (large public metadata) is signed again without them: the user still signs in,
 * and the warning names the app and the size only, never the user's data.
 */
async function signAccess(deps: SessionDeps, appId: string, basis: AccessBasis, user: User, sessionId: string, exp: Date): Promise<string> {
  const { kid, amr } = basis;
  const claims = { sub: user.id, sid: sessionId, email: user.email, email_verified: user.emailVerified, amr, aal: aalOf(amr), auth_time: basis.authTime, org: basis.org };
  if (basis.tokenClaims === null) return deps.keys.signAccessToken(appId, claims, exp, kid);
  const token = await deps.keys.signAccessToken(appId, { ...claims, custom: renderClaims(basis.tokenClaims, user) }, exp, kid);
  if (token.length <= MAX_ACCESS_TOKEN_BYTES) return token;
  deps.log?.warn({ app_id: appId, token_bytes: token.length, code: 'token_claims_too_large' }, 'custom claims left out: the access token would pass 4 KiB');
  return deps.keys.signAccessToken(appId, claims, exp, kid);
}
