import { sql } from 'kysely';
import { USER_COLUMNS } from '../columns.js';
import { compiledQuery } from '../compiled.js';
import { rowLimit } from '../limit.js';
import type { Db } from '../db.js';
import type { DialectName } from '../dialect.js';
import { lockClause } from '../tables-dialect.js';
import { inTransaction } from '../transaction.js';
import type { NewUser, UserRow } from '../types.js';
import { changeUserCount } from './user-counts.js';

export interface User {
  id: string;
  appId: string;
  email: string | null;
  emailVerified: boolean;
  passwordHash: string | null;
  isBot: boolean;
  publicKey: string | null;
  /** A self sign-up that has not verified its email yet: password sign-in is refused until it does. */
  requiresVerification: boolean;
  createdAt: string;
  updatedAt: string;
  /** Written by the server, read by the user too (GET /v1/me). */
  publicMetadata: Metadata;
  /** Written and read by the server only. */
  privateMetadata: Metadata;
  /** Written and read by the user (PATCH /v1/me) and the server. */
  unsafeMetadata: Metadata;
  /** Banned by the server: every sign-in and refresh is refused. */
  banned: boolean;
}

/** A metadata object, as stored (JSON text) and answered. */
export type Metadata = Record<string, unknown>;

/** The columns toUser reads (a joined query may select only these). */
export type UserFields = Pick<
  UserRow,
  | 'id' | 'app_id' | 'email' | 'email_verified' | 'password_hash' | 'is_bot' | 'public_key' | 'requires_verification' | 'created_at' | 'updated_at'
  | 'public_metadata' | 'private_metadata' | 'unsafe_metadata' | 'banned'
>;

/** A stored metadata column: always an object ('{}' when none; the service writes only objects). */
export const parseMetadata = (text: string): Metadata => JSON.parse(text) as Metadata;

export function toUser(row: UserFields): User {
  return {
    id: row.id,
    appId: row.app_id,
    email: row.email,
    emailVerified: row.email_verified === 1,
    passwordHash: row.password_hash,
    isBot: row.is_bot === 1,
    publicKey: row.public_key,
    requiresVerification: row.requires_verification === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    publicMetadata: parseMetadata(row.public_metadata),
    privateMetadata: parseMetadata(row.private_metadata),
    unsafeMetadata: parseMetadata(row.unsafe_metadata),
    banned: row.banned === 1,
  };
}

/** Emails compare case-insensitively: the stored key is the trimmed, lower-cased address. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** The row of a person (not a bot) signing up, created server-side or arriving by SSO. */
export function emailUserRow(input: {
  id: string;
  appId: string;
  email: string;
  emailVerified: boolean;
  passwordHash: string | null;
  requiresVerification: boolean;
  now: string;
}): UserRow {
  const email = input.email.trim();
  return {
    id: input.id,
    app_id: input.appId,
    email,
    email_normalized: normalizeEmail(email),
    email_verified: input.emailVerified ? 1 : 0,
    password_hash: input.passwordHash,
    is_bot: 0,
    public_key: null,
    requires_verification: input.requiresVerification ? 1 : 0,
    contested: 0,
    created_at: input.now,
    updated_at: input.now,
    public_metadata: '{}',
    private_metadata: '{}',
    unsafe_metadata: '{}',
    banned: 0,
  };
}

/** Inserts the user and counts it in the app's kept total, in one transaction (the caller's, when it is one). */
export async function insertUser(db: Db, row: NewUser): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.insertInto('users').values(row).execute();
    await changeUserCount(trx, row.app_id, row.id, 1);
  });
}

/** The user of this app, or undefined. */
export const userByIdQuery = compiledQuery(['appId', 'userId'], (db, v) => db.selectFrom('users').select(USER_COLUMNS).where('app_id', '=', v.appId).where('id', '=', v.userId));

export async function findUserById(db: Db, appId: string, userId: string): Promise<User | undefined> {
  const [row] = await userByIdQuery(db, { appId, userId });
  return row && toUser(row);
}

/** The user of this app with this email (case-insensitive), or undefined. */
const userByEmailQuery = compiledQuery(['appId', 'emailNormalized'], (db, v) =>
  db.selectFrom('users').select(USER_COLUMNS).where('app_id', '=', v.appId).where('email_normalized', '=', v.emailNormalized),
);

export async function findUserByEmail(db: Db, appId: string, email: string): Promise<User | undefined> {
  const [row] = await userByEmailQuery(db, { appId, emailNormalized: normalizeEmail(email) });
  return row && toUser(row);
}

/** The bot of this app with this public key (canonical base64), or undefined. */
export async function findUserByPublicKey(db: Db, appId: string, publicKey: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('app_id', '=', appId).where('public_key', '=', publicKey).executeTakeFirst();
  return row && toUser(row);
}

/** A user's place in the newest-first order: the users after it are older, or as old with a smaller id. */
export interface UserPosition {
  createdAt: string;
  id: string;
}

/**
 * The app's users newest first, after `after` (or from the newest), matching `email` when given: the
 * WHERE and ORDER BY that the index users_app_newest (app_id, created_at, id) answers as one range.
 */
function newestFirst(db: Db, appId: string, options: { email?: string; after?: UserPosition }) {
  let query = db.selectFrom('users').where('app_id', '=', appId);
  if (options.email !== undefined) query = query.where('email_normalized', '=', normalizeEmail(options.email));
  if (options.after) {
    const { createdAt, id } = options.after;
    query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(createdAt, id)));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc');
}

/**
 * The position `skip` users past `after` in the newest-first order (the `skip`-th user's), read from the
 * index alone; undefined when fewer remain. Walks `skip` index entries, so callers bound `skip`.
 */
export async function findUserPosition(db: Db, appId: string, options: { email?: string; after?: UserPosition; skip: number }): Promise<UserPosition | undefined> {
  const row = await userPositionQuery(db, appId, options).executeTakeFirst();
  return row && { createdAt: row.created_at, id: row.id };
}

/** findUserPosition's statement (exported for the test of its plan). */
export const userPositionQuery = (db: Db, appId: string, options: { email?: string; after?: UserPosition; skip: number }) =>
  newestFirst(db, appId, options)
    .select(['created_at', 'id'])
    .limit(rowLimit(1))
    .offset(rowLimit(options.skip - 1));

/**
 * Up to `limit` users after `after`, skipping `offset` first, newest first. The skipped entries are walked
 * in the index only (the ids are chosen there, the rows read for them alone), so an offset costs index
 * entries, not rows.
 */
export async function listUsersPage(db: Db, appId: string, options: { email?: string; after?: UserPosition; offset: number; limit: number }): Promise<User[]> {
  return (await usersPageQuery(db, appId, options).execute()).map(toUser);
}

/** listUsersPage's statement (exported for the test of its plan). */
export const usersPageQuery = (db: Db, appId: string, options: { email?: string; after?: UserPosition; offset: number; limit: number }) =>
  db
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where('app_id', '=', appId)
    .where('id', 'in', newestFirst(db, appId, options).select('id').limit(rowLimit(options.limit)).offset(rowLimit(options.offset)))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');

/** How many users of the app have this email (0 or 1: a probe of the unique index on the address). */
export async function countUsersWithEmail(db: Db, appId: string, email: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .where('app_id', '=', appId)
    .where('email_normalized', '=', normalizeEmail(email))
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Verifies a sign-up's email in one write. A contested account (someone else's sign-up was refused for
 * this email while it was pending) loses the password set before, in the same statement, so no race
 * between the contest and the proof can keep it. Returns whether it was contested (the caller then
 * revokes earlier sessions), or undefined when the user was already verified.
 */
export async function verifySignUpEmail(db: Db, appId: string, userId: string, now: string): Promise<{ contested: boolean } | undefined> {
  const row = await db
    .updateTable('users')
    .set({
      email_verified: 1,
      requires_verification: 0,
      password_hash: sql<string | null>`CASE WHEN contested = 1 THEN NULL ELSE password_hash END`,
      updated_at: now,
    })
    .where('app_id', '=', appId)
    .where('id', '=', userId)
    .where('email_verified', '=', 0)
    .returning('contested')
    .executeTakeFirst();
  return row && { contested: row.contested === 1 };
}

/**
 * Marks the unverified self sign-up holding this email as contested (a sign-up for the same email was
 * refused because of it). Verified accounts and server-created users are left alone.
 */
export async function markSignUpContested(db: Db, appId: string, email: string): Promise<boolean> {
  const rows = await db
    .updateTable('users')
    .set({ contested: 1 })
    .where('app_id', '=', appId)
    .where('email_normalized', '=', normalizeEmail(email))
    .where('email_verified', '=', 0)
    .where('requires_verification', '=', 1)
    .returning('id')
    .execute();
  return rows.length > 0;
}

export async function setPasswordHash(db: Db, appId: string, userId: string, passwordHash: string | null, now: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('app_id', '=', appId).where('id', '=', userId).execute();
}

/**
 * Removes a user that has never been used: unverified, no sessions, no challenges but its own.
 * Undoes a sign-up whose email could not be sent.
 */
export async function deleteUnverifiedUser(db: Db, appId: string, userId: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.deleteFrom('email_challenges').where('app_id', '=', appId).where('user_id', '=', userId).execute();
    const result = await trx.deleteFrom('users').where('app_id', '=', appId).where('id', '=', userId).where('email_verified', '=', 0).executeTakeFirst();
    if (Number(result.numDeletedRows) === 1) await changeUserCount(trx, appId, userId, -1);
  });
}

/**
 * Pre-hijacking rule (SSO, OAuth): an unverified user that a proven owner of the email links into loses
 * its password and becomes verified. Conditional on email_verified = 0, so only the first linker acts;
 * true when this call changed the user (the caller then revokes its sessions).
 */
export async function claimUnverifiedUser(db: Db, appId: string, userId: string, now: string): Promise<boolean> {
  const rows = await db
    .updateTable('users')
    .set({ email_verified: 1, requires_verification: 0, password_hash: null, updated_at: now })
    .where('app_id', '=', appId)
    .where('id', '=', userId)
    .where('email_verified', '=', 0)
    .returning('id')
    .execute();
  return rows.length === 1;
}

/**
 * Whether the app has this user, with a row lock on PostgreSQL until the transaction ends: `update` for
 * the user's deletion, `share` (key share) for a write that adds something the user owns (a table row, an
 * upload). A writer that got its lock first is committed before the deletion reads what the user owns;
 * one that waited finds the user gone. SQLite's transactions are serial already.
 */
export async function lockUser(db: Db, dialect: DialectName, appId: string, userId: string, mode: 'update' | 'share'): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`select id from users where id = ${userId} and app_id = ${appId}${lockClause(dialect, mode)}`.execute(db);
  return rows.length === 1;
}

/** Deletes the user row (last step of a user's deletion) and uncounts it, in one transaction; true when it was there. */
export async function deleteUserRow(db: Db, appId: string, userId: string): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const result = await trx.deleteFrom('users').where('app_id', '=', appId).where('id', '=', userId).executeTakeFirst();
    const deleted = Number(result.numDeletedRows) === 1;
    if (deleted) await changeUserCount(trx, appId, userId, -1);
    return deleted;
  });
}

/**
 * A password reset (docs/account.md): the new password, and the email counts as verified (the
 * reset proved the inbox). A contested sign-up stops being contested: the prover chose this password.
 */
export async function resetPassword(db: Db, appId: string, userId: string, passwordHash: string, now: string): Promise<boolean> {
  const rows = await db
    .updateTable('users')
    .set({ password_hash: passwordHash, email_verified: 1, requires_verification: 0, contested: 0, updated_at: now })
    .where('app_id', '=', appId)
    .where('id', '=', userId)
    .returning('id')
    .execute();
  return rows.length === 1;
}

/**
 * Replaces the password if it is still the one the caller checked (`expected`, null for none): two
 * changes racing on one old password cannot both win. True when this call changed it.
 */
export async function replacePasswordHash(db: Db, appId: string, userId: string, expected: string | null, passwordHash: string, now: string): Promise<boolean> {
  const rows = await db
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: now })
    .where('app_id', '=', appId)
    .where('id', '=', userId)
    .where('password_hash', expected === null ? 'is' : '=', expected)
    .returning('id')
    .execute();
  return rows.length === 1;
}

/**
 * Moves the user to a proven new address (verified). The unique index on (app_id, email_normalized)
 * decides a race for one address: the loser's write fails with a unique violation.
 */
export async function changeEmail(db: Db, appId: string, userId: string, email: string, now: string): Promise<boolean> {
  const rows = await db
    .updateTable('users')
    .set({ email: email.trim(), email_normalized: normalizeEmail(email), email_verified: 1, requires_verification: 0, contested: 0, updated_at: now })
    .where('app_id', '=', appId)
    .where('id', '=', userId)
    .returning('id')
    .execute();
  return rows.length === 1;
}

/** What a server update (PATCH /v1/users/{id}) changes; metadata as JSON text, checked by the service. */
export interface UserChanges {
  email?: string;
  emailVerified?: boolean;
  publicMetadata?: string;
  privateMetadata?: string;
  unsafeMetadata?: string;
  banned?: boolean;
}

/**
 * Applies the changes to the app's user in one statement and answers the user as it now is; undefined when
 * the app has no such user. A new email taken in the app fails with a unique violation (the caller's 409).
 */
export async function updateUser(db: Db, appId: string, userId: string, changes: UserChanges, now: string): Promise<User | undefined> {
  const row = await db
    .updateTable('users')
    .set({
      ...(changes.email !== undefined && { email: changes.email.trim(), email_normalized: normalizeEmail(changes.email) }),
      ...(changes.emailVerified !== undefined && { email_verified: changes.emailVerified ? 1 : 0 }),
      // A verified address no longer waits for its sign-up's proof.
      ...(changes.emailVerified === true && { requires_verification: 0, contested: 0 }),
      ...(changes.publicMetadata !== undefined && { public_metadata: changes.publicMetadata }),
      ...(changes.privateMetadata !== undefined && { private_metadata: changes.privateMetadata }),
      ...(changes.unsafeMetadata !== undefined && { unsafe_metadata: changes.unsafeMetadata }),
      ...(changes.banned !== undefined && { banned: changes.banned ? 1 : 0 }),
      updated_at: now,
    })
    .where('app_id', '=', appId)
    .where('id', '=', userId)
    .returning(USER_COLUMNS)
    .executeTakeFirst();
  return row && toUser(row);
}
