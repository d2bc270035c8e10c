import { iso } from '../../clock.js';
import type { Deps } from '../../deps.js';
import { badRequest, conflict, notFound, unauthorized } from '../../errors.js';
import { isUniqueViolation } from '../../store/dialect.js';
import type { Db } from '../../store/db.js';
import { recordEvent } from '../events/record.js';
import { eventOf, type EventContext } from '../events/types.js';
import { revokeUserSessions } from '../sessions/revocations.js';
import * as users from '../../store/repos/users.js';
import type { Metadata, User } from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import { metadataText } from './metadata.js';
import { localeOf } from '../mail/email-templates.js';

// Changes to a user: the server's (PATCH /v1/users/{id}, Secret) and the user's own (PATCH /v1/me, which may
// change unsafe_metadata only: the route's closed schema refuses any other field). Each is one transaction.

export type UserUpdateDeps = Pick<Deps, 'db' | 'clock'>;

export interface ServerUserChanges {
  email?: string;
  email_verified?: boolean;
  public_metadata?: Metadata;
  private_metadata?: Metadata;
  unsafe_metadata?: Metadata;
  banned?: boolean;
  /** A BCP 47 tag (400 invalid_locale otherwise), or null to forget it. */
  locale?: string | null;
}

/**
 * The server's update. A new email is unverified unless `email_verified` says otherwise (the server vouches
 * for what it sets); 409 `email_taken` when another user of the app holds it (the unique index decides a
 * race). Banning revokes every session of the user in the same transaction: a revoked session is refused
 * by the next request on any node (each request reads its session's row), and its refresh token dies.
 * Unbanning lets the user sign in again; the ended sessions stay ended.
 */
export async function updateUserByServer(deps: UserUpdateDeps, app: App, userId: string, input: ServerUserChanges, context: EventContext): Promise<User> {
  const appId = app.id;
  // Sizes are checked before anything is read or written.
  const changes: users.UserChanges = {
    email: input.email,
    emailVerified: input.email_verified ?? (input.email !== undefined ? false : undefined),
    publicMetadata: input.public_metadata && metadataText('public_metadata', input.public_metadata),
    privateMetadata: input.private_metadata && metadataText('private_metadata', input.private_metadata),
    unsafeMetadata: input.unsafe_metadata && metadataText('unsafe_metadata', input.unsafe_metadata),
    banned: input.banned,
    locale: localeColumn(input.locale),
  };
  const at = deps.clock.now();
  const now = iso(at);
  const changed = Object.keys(input).filter((key) => input[key as keyof ServerUserChanges] !== undefined);
  try {
    return await inTransaction(deps.db, async (trx) => {
      const before = await users.findUserById(trx, appId, userId);
      if (!before) throw notFound('user not found');
      if (before.isBot && (input.email !== undefined || input.email_verified !== undefined)) throw badRequest('bots have no email');
      const after = await users.updateUser(trx, appId, userId, changes, now);
      if (!after) throw notFound('user not found');
      await recordUserUpdated(trx, app, userId, changed, context, at);
      if (input.email !== undefined && input.email !== before.email) {
        await recordEvent(trx, eventOf(context, { type: 'email.changed', tenantId: app.tenantId, appId, userId, data: { email: after.email } }), at);
      }
      if (input.banned === true) await revokeUserSessions(trx, userId, { app, reason: 'banned', context, now: at });
      return after;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('another user of this application has this email', 'email_taken');
    throw error;
  }
}

/** The locale as stored: canonical, null to forget it, undefined to leave it. */
const localeColumn = (locale: string | null | undefined) => (locale === undefined || locale === null ? locale : localeOf(locale));

/** The user's own update (PATCH /v1/me): unsafe_metadata, replaced whole, and the locale of their emails. */
export async function updateMe(deps: UserUpdateDeps, app: App, userId: string, input: { unsafe_metadata?: Metadata; locale?: string | null }, context: EventContext): Promise<User> {
  const unsafeMetadata = input.unsafe_metadata && metadataText('unsafe_metadata', input.unsafe_metadata);
  const locale = localeColumn(input.locale);
  const at = deps.clock.now();
  const changed = Object.keys(input).filter((key) => input[key as keyof typeof input] !== undefined);
  const user = await inTransaction(deps.db, async (trx) => {
    const updated = await users.updateUser(trx, app.id, userId, { unsafeMetadata, locale }, iso(at));
    if (updated) await recordUserUpdated(trx, app, userId, changed, context, at);
    return updated;
  });
  if (!user) throw unauthorized('not authenticated');
  return user;
}

type App = { id: string; tenantId: string };

/** user.updated with the names of the fields the change set (never their values). */
export function recordUserUpdated(trx: Db, app: App, userId: string, changed: string[], context: EventContext, at: Date): Promise<string> {
  return recordEvent(trx, eventOf(context, { type: 'user.updated', tenantId: app.tenantId, appId: app.id, userId, data: { changed } }), at);
}
