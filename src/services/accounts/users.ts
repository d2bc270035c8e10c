import { addSeconds, iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import { hashPassword } from '../../crypto/passwords.js';
import type { Deps } from '../../deps.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import * as listing from '../../store/repos/user-listing.js';
import * as users from '../../store/repos/users.js';
import type { User } from '../../store/repos/users.js';
import type { Db } from '../../store/db.js';
import { isUniqueViolation } from '../../store/dialect.js';
import { sumUserCount } from '../../store/repos/user-counts.js';
import { inTransaction } from '../../store/transaction.js';
import { startSession } from '../sessions/sessions.js';
import { decodePairCursor, encodePairCursor } from '../pair-cursor.js';
import { recordEvent } from '../events/record.js';
import { eventOf, type EventContext } from '../events/types.js';
import { localeOf } from '../mail/email-templates.js';

// Server-side user management (docs/users.md): the caller holds the app's secret key, so there is
// no verification, no proof-of-work and no rate limit here.

export type UserDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'keys' | 'secrets'>;

/** How many users a step of a long offset walks (one statement; the event loop is free between steps). */
export const OFFSET_STEP = 20_000;

export interface UserPage {
  users: User[];
  /** Every user matching the query (the whole list's size, whatever the page). */
  total: number;
  /** Where the next page starts (after the last user of this one); null on the last page. */
  nextCursor: string | null;
}

/**
 * A page of the app's users, newest first; `email` is an exact, case-insensitive match. A page starts
 * after `cursor` (keyset: stable under inserts), then skips `offset` users; every read is a range of the
 * index (app_id, created_at, id), a long offset walked in steps of OFFSET_STEP entries with the event loop
 * free between them. `total` is the app's kept count (store/repos/user-counts.ts), or with `email` a probe
 * of the unique email index (0 or 1): never a count over the app's users.
 */
export async function listUsers(deps: UserDeps, appId: string, query: { limit: number; offset: number; email?: string; externalId?: string; cursor?: string }): Promise<UserPage> {
  if (query.externalId !== undefined) return userWithExternalId(deps, appId, query.externalId, query);
  let after = query.cursor === undefined ? undefined : decodeUserCursor(query.cursor);
  let offset = query.offset;
  const total = query.email === undefined ? await sumUserCount(deps.db, appId) : await listing.countUsersWithEmail(deps.db, appId, query.email);
  while (offset > OFFSET_STEP) {
    after = await listing.findUserPosition(deps.db, appId, { email: query.email, after, skip: OFFSET_STEP });
    if (!after) return { users: [], total, nextCursor: null };
    offset -= OFFSET_STEP;
    // better-sqlite3 runs each statement on the event loop: let waiting requests in between steps.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const found = await listing.listUsersPage(deps.db, appId, { email: query.email, after, offset, limit: query.limit + 1 });
  const page = found.slice(0, query.limit);
  const last = page.at(-1);
  const nextCursor = found.length > query.limit && last ? encodeUserCursor({ createdAt: last.createdAt, id: last.id }) : null;
  return { users: page, total, nextCursor };
}

/**
 * `GET /v1/users?external_id=`: the imported user with that id (a probe of the unique index of migration
 * 0036), when it matches `email` too; a one-user list never has a next page.
 */
async function userWithExternalId(deps: UserDeps, appId: string, externalId: string, query: { offset: number; email?: string; cursor?: string }): Promise<UserPage> {
  if (query.cursor !== undefined) decodeUserCursor(query.cursor);
  const user = await users.findUserByExternalId(deps.db, appId, externalId);
  const matches = user !== undefined && (query.email === undefined || (user.email !== null && users.normalizeEmail(user.email) === users.normalizeEmail(query.email)));
  const found = matches ? [user] : [];
  return { users: query.offset > 0 || query.cursor !== undefined ? [] : found, total: found.length, nextCursor: null };
}

// A cursor is the last user's (created_at, id): nothing the page did not show, so it needs no MAC; any
// position is valid (the query stays scoped to the app), a malformed one is 400.
const encodeUserCursor = (position: listing.UserPosition) => encodePairCursor(position.createdAt, position.id);

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function decodeUserCursor(cursor: string): listing.UserPosition {
  const [createdAt, id] = decodePairCursor(cursor, [TIMESTAMP, UUID]);
  return { createdAt, id };
}

/** The app's user, or 404 (a user of another app is not found either). */
export async function getUser(deps: UserDeps, appId: string, userId: string): Promise<User> {
  const user = await users.findUserById(deps.db, appId, userId);
  if (!user) throw notFound('user not found');
  return user;
}

/**
 * Creates a user with email_verified false. Created server-side, a password (when given) may be used to
 * sign in at once: the server vouches for the account; a self sign-up (`selfSignUp`) must verify first.
 * Duplicates are caught by the unique constraint, not by a read first, so two concurrent creations
 * cannot both succeed.
 */
export async function createUser(
  deps: Pick<Deps, 'db' | 'clock'>,
  app: Application,
  input: { email: string; password?: string | null; locale?: string | null },
  options: { selfSignUp?: boolean; alsoInTransaction?: (trx: Db, user: User) => Promise<void>; event: { context: EventContext; source: UserSource } },
): Promise<User> {
  const locale = input.locale == null ? null : localeOf(input.locale);
  if (input.password != null && !app.passwordsEnabled) {
    throw badRequest('passwords are disabled for this application', 'passwords_disabled');
  }
  // argon2 runs before any write: slow work stays outside the database.
  const passwordHash = input.password != null ? await hashPassword(input.password) : null;
  const now = deps.clock.now();
  const row = users.emailUserRow({
    id: newUuid(),
    appId: app.id,
    email: input.email,
    emailVerified: false,
    passwordHash,
    requiresVerification: options.selfSignUp ?? false,
    now: iso(now),
    locale,
  });
  try {
    // alsoInTransaction commits with the user (sign-up: its challenge and outbox email) or not at all.
    await inTransaction(deps.db, async (trx) => {
      await users.insertUser(trx, row);
      await recordUserCreated(trx, app, row.id, row.email, options.event, now);
      await options.alsoInTransaction?.(trx, users.toUser(row));
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('a user with this email already exists', 'user_exists');
    throw error;
  }
  return users.toUser(row);
}

/** Where a user came from (`user.created`'s data.source). */
export type UserSource = 'signup' | 'server' | 'import' | 'oauth' | 'sso' | 'bot';

/** The `user.created` event of a user just inserted in `trx`; a self sign-up is its own actor. */
export async function recordUserCreated(trx: Db, app: Application, userId: string, email: string | null, event: { context: EventContext; source: UserSource }, now: Date): Promise<void> {
  const { context, source } = event;
  const actor = context.actor.type === 'user' && context.actor.id === null ? { type: 'user' as const, id: userId } : context.actor;
  const data = email === null ? { source } : { source, email };
  await recordEvent(trx, { ...eventOf(context, { type: 'user.created', tenantId: app.tenantId, appId: app.id, userId, data }), actor }, now);
}

export interface SignInToken {
  token: string;
  refresh_token: string;
  user_id: string;
  session_id: string;
  expires_at: string;
}

/**
 * Issues a session for the user on the server's word (`POST /v1/sign_in_tokens`). The access JWT lives
 * `expiresInSeconds`, clamped to MAX_SIGNIN_TOKEN_LIFETIME_SECONDS; its `exp` equals `expires_at`
 * (both whole seconds, so a client comparing them sees the same instant).
 */
export async function issueSignInToken(deps: UserDeps, app: Pick<Application, 'id' | 'tenantId'>, userId: string, expiresInSeconds: number, context: EventContext): Promise<SignInToken> {
  const appId = app.id;
  if (!Number.isInteger(expiresInSeconds) || expiresInSeconds <= 0) throw badRequest('expires_in_seconds must be a positive integer');
  const user = await getUser(deps, appId, userId);
  const seconds = Math.min(expiresInSeconds, deps.config.maxSigninTokenLifetimeSeconds);
  const nowWholeSecond = new Date(Math.floor(deps.clock.now().getTime() / 1000) * 1000);
  const tokens = await startSession(deps, app, user, { accessExpiresAt: addSeconds(nowWholeSecond, seconds), amr: ['token'], opening: { method: 'sign_in_token', context } });
  return {
    token: tokens.access_token,
    refresh_token: tokens.refresh_token,
    user_id: tokens.user_id,
    session_id: tokens.session_id,
    expires_at: tokens.expires_at,
  };
}
