import { compiledQuery } from '../compiled.js';
import { rowLimit } from '../limit.js';
import { liveKeyAppQuery, toApplication, type Application } from './applications.js';
import type { ActiveOrganization } from './active-organization.js';
import { prefixed } from './prefixed-columns.js';
import { parseMetadata, toUser, type Metadata, type User, type UserFields } from './users.js';

/** What GET /v1/me answers about the signed-in user. */
export interface SessionUser {
  id: string;
  email: string | null;
  emailVerified: boolean;
  isBot: boolean;
  publicMetadata: Metadata;
  unsafeMetadata: Metadata;
  /** The session's active organisation (docs/organizations.md), or null. */
  organization: ActiveOrganization | null;
  locale: string | null;
}

const sessionAuthQuery = compiledQuery(['keyHash', 'appId', 'sessionId', 'userId', 'now'], (db, v) =>
  // The tenant's pause rides on the same query (billing: no extra round trip, no cache).
  liveKeyAppQuery(db, v.keyHash, 'publishable', v.now)
    .innerJoin('sessions', 'sessions.app_id', 'applications.id')
    .innerJoin('users', (join) => join.onRef('users.id', '=', 'sessions.user_id').onRef('users.app_id', '=', 'sessions.app_id'))
    // The session's active organisation (migration 0035), while the user is a member and it is live: by primary keys.
    .leftJoin('organization_members as om', (join) => join.onRef('om.organization_id', '=', 'sessions.active_org_id').onRef('om.user_id', '=', 'sessions.user_id'))
    .leftJoin('organizations as oo', (join) => join.onRef('oo.id', '=', 'om.organization_id').onRef('oo.app_id', '=', 'sessions.app_id').on('oo.deleted_at', 'is', null))
    .leftJoin('organization_roles as orl', (join) => join.onRef('orl.app_id', '=', 'oo.app_id').onRef('orl.key', '=', 'om.role'))
    .select(['oo.id as org_id', 'oo.slug as org_slug', 'om.role as org_role', 'orl.permissions as org_role_permissions'])
    // The metadata GET /v1/me shows rides on the row already read (never the private one).
    .select(prefixed('users', 'user_', ['email', 'email_verified', 'is_bot', 'public_metadata', 'unsafe_metadata', 'locale']))
    .where('api_keys.app_id', '=', v.appId)
    .where('sessions.id', '=', v.sessionId)
    .where('sessions.user_id', '=', v.userId)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', v.now)
    .limit(rowLimit(1)),
);

/**
 * Publishable key → app → live session → user in one query (one round trip, compiled once): the
 * session guard's whole database work for a valid request. Undefined when any link is missing (unknown
 * or expired key, another app's key, a revoked or expired session, a session of another user); the
 * caller then takes the step-by-step path, which tells which one failed.
 */
export async function findSessionAuth(
  db: Parameters<typeof sessionAuthQuery>[0],
  input: { keyHash: string; appId: string; sessionId: string; userId: string; now: string },
): Promise<{ app: Application; user: SessionUser } | undefined> {
  const [row] = await sessionAuthQuery(db, input);
  if (!row) return undefined;
  const { user_email, user_email_verified, user_is_bot, user_public_metadata, user_unsafe_metadata, org_id, org_slug, org_role, org_role_permissions, user_locale, ...app } = row;
  return {
    app: toApplication(app),
    user: {
      id: input.userId,
      email: user_email,
      emailVerified: user_email_verified === 1,
      isBot: user_is_bot === 1,
      publicMetadata: parseMetadata(user_public_metadata),
      unsafeMetadata: parseMetadata(user_unsafe_metadata),
      organization: org_id === null || org_slug === null || org_role === null ? null : { id: org_id, slug: org_slug, role: org_role, rolePermissions: org_role_permissions },
      locale: user_locale ?? null,
    },
  };
}

const keyAppAndEmailUserQuery = compiledQuery(['keyHash', 'emailNormalized', 'now'], (db, v) =>
  liveKeyAppQuery(db, v.keyHash, 'publishable', v.now)
    .leftJoin('users', (join) => join.onRef('users.app_id', '=', 'applications.id').on('users.email_normalized', '=', v.emailNormalized))
    .select(
      prefixed('users', 'user_', [
        'id', 'email', 'email_verified', 'password_hash', 'is_bot', 'public_key', 'requires_verification', 'created_at', 'updated_at',
        'public_metadata', 'private_metadata', 'unsafe_metadata', 'banned', 'locale',
      ]),
    )
    .limit(rowLimit(1)),
);

/**
 * Publishable key → app, and the app's user with this (normalized) email, in one query: a sign-in's
 * lookups in one round trip instead of two. Undefined for an unknown or expired key; `user` undefined
 * when the app has no such user.
 */
export async function findKeyAppAndEmailUser(
  db: Parameters<typeof keyAppAndEmailUserQuery>[0],
  input: { keyHash: string; emailNormalized: string; now: string },
): Promise<{ app: Application; user: User | undefined } | undefined> {
  const [row] = await keyAppAndEmailUserQuery(db, input);
  if (!row) return undefined;
  const {
    user_id, user_email, user_email_verified, user_password_hash, user_is_bot, user_public_key, user_requires_verification, user_created_at, user_updated_at,
    user_public_metadata, user_private_metadata, user_unsafe_metadata, user_banned, user_locale,
    ...app
  } = row;
  const application = toApplication(app);
  if (user_id === null) return { app: application, user: undefined };
  // The left join types every user column nullable; with the user's id present, the row is the user's.
  const user = {
    id: user_id,
    app_id: application.id,
    email: user_email,
    email_verified: user_email_verified,
    password_hash: user_password_hash,
    is_bot: user_is_bot,
    public_key: user_public_key,
    requires_verification: user_requires_verification,
    created_at: user_created_at,
    updated_at: user_updated_at,
    public_metadata: user_public_metadata,
    private_metadata: user_private_metadata,
    unsafe_metadata: user_unsafe_metadata,
    banned: user_banned,
    locale: user_locale,
  } as UserFields;
  return { app: application, user: toUser(user) };
}
