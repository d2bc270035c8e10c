import { iso } from '../../clock.js';
import type { Deps } from '../../deps.js';
import { badRequest, conflict, notFound, unauthorized } from '../../errors.js';
import { isUniqueViolation } from '../../store/dialect.js';
import * as sessions from '../../store/repos/sessions.js';
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
export async function updateUserByServer(deps: UserUpdateDeps, appId: string, userId: string, input: ServerUserChanges): Promise<User> {
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
  const now = iso(deps.clock.now());
  try {
    return await inTransaction(deps.db, async (trx) => {
      const before = await users.findUserById(trx, appId, userId);
      if (!before) throw notFound('user not found');
      if (before.isBot && (input.email !== undefined || input.email_verified !== undefined)) throw badRequest('bots have no email');
      const after = await users.updateUser(trx, appId, userId, changes, now);
      if (!after) throw notFound('user not found');
      if (input.banned === true) await sessions.revokeUserSessions(trx, appId, userId, now);
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
export async function updateMe(deps: UserUpdateDeps, appId: string, userId: string, input: { unsafe_metadata?: Metadata; locale?: string | null }): Promise<User> {
  const unsafeMetadata = input.unsafe_metadata && metadataText('unsafe_metadata', input.unsafe_metadata);
  const user = await users.updateUser(deps.db, appId, userId, { unsafeMetadata, locale: localeColumn(input.locale) }, iso(deps.clock.now()));
  if (!user) throw unauthorized('not authenticated');
  return user;
}
