import { sql } from 'kysely';
import { USER_COLUMNS } from '../columns.js';
import { compiledQuery } from '../compiled.js';
import type { Db } from '../db.js';
import type { DialectName } from '../dialect.js';
import { lockClause } from '../tables-dialect.js';
import { inTransaction } from '../transaction.js';
import type { NewUser, UserRow } from '../types.js';
import { addUserCounts, changeUserCount } from './user-counts.js';
import { storedPasswordHash } from './password-marks.js';

// The User a row maps to is user-row.ts; re-exported, as every service reads users through this module.
export { normalizeEmail, parseMetadata, toUser, type Metadata, type User, type UserFields } from './user-row.js';
import { normalizeEmail, toUser, type User } from './user-row.js';

// GET /v1/users' statements (user-listing.ts), exported here for the test of their plans.
export { userPositionQuery, usersPageQuery } from './user-listing.js';

/** The row of a person (not a bot) signing up, created server-side or arriving by SSO. */
export function emailUserRow(input: {
  id: string;
  appId: string;
  email: string;
  emailVerified: boolean;
  passwordHash: string | null;
  requiresVerification: boolean;
  now: string;
  externalId?: string | null;
  /** When the user was made, when not now (an imported user's). */
  createdAt?: string;
  locale?: string | null;
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
    created_at: input.createdAt ?? input.now,
    updated_at: input.now,
    public_metadata: '{}',
    private_metadata: '{}',
    unsafe_metadata: '{}',
    banned: 0,
    external_id: input.externalId ?? null,
    locale: input.locale ?? null,
  };
}

/** Inserts the user and counts it in the app's kept total, in one transaction (the caller's, when it is one). */
export async function insertUser(db: Db, row: NewUser): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.insertInto('users').values(row).execute();
    await changeUserCount(trx, row.app_id, row.id, 1);
  });
}

/**
 * Inserts the rows (one app's) in one statement, each row whose email, external_id or id is taken left out,
 * and counts those inserted in the app's total; in the caller's transaction. Answers the ids inserted.
 */
export async function insertUsersUnlessTaken(db: Db, appId: string, rows: NewUser[]): Promise<Set<string>> {
  const ids: string[] = [];
  // In statements of 128, 64, ... 1 rows, each size compiled once (Kysely builds none per call).
  for (let from = 0, size = 128; from < rows.length; size >>= 1) {
    while (from + size <= rows.length) {
      const part = rows.slice(from, from + size);
      const values: Record<string, unknown> = {};
      part.forEach((row, i) => INSERT_COLUMNS.forEach((column) => (values[`r${i}_${column}`] = (row as Record<string, unknown>)[column as string] ?? null)));
      for (const row of await insertRowsStatement(size)(db, values)) ids.push(row.id);
      from += size;
    }
  }
  await addUserCounts(db, appId, ids);
  return new Set(ids);
}

/** The columns emailUserRow fills: what insertUsersUnlessTaken writes. */
const INSERT_COLUMNS = Object.keys(emailUserRow({ id: '', appId: '', email: '', emailVerified: false, passwordHash: null, requiresVerification: false, now: '' })) as (keyof UserRow)[];
const insertStatements = new Map<number, ReturnType<typeof compileInsertRows>>();
const compileInsertRows = (size: number) => {
  const names = Array.from({ length: size }, (_, i) => INSERT_COLUMNS.map((column) => `r${i}_${column}`)).flat();
  return compiledQuery(names, (db, v) =>
    db
      .insertInto('users')
      .values(Array.from({ length: size }, (_, i) => Object.fromEntries(INSERT_COLUMNS.map((column) => [column, v[`r${i}_${column}`]])) as unknown as NewUser))
      .onConflict((oc) => oc.doNothing())
      .returning('id'),
  );
};
function insertRowsStatement(size: number) {
  let statement = insertStatements.get(size);
  if (!statement) insertStatements.set(size, (statement = compileInsertRows(size)));
  return statement;
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

/** The user of this app with this external_id (an imported user's id elsewhere; the unique index of migration 0036), or undefined. */
export async function findUserByExternalId(db: Db, appId: string, externalId: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').select(USER_COLUMNS).where('app_id', '=', appId).where('external_id', '=', externalId).executeTakeFirst();
  return row && toUser(row);
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
 * changes racing on one old password cannot both win. True when this call changed it. A user with a
 * verified factor keeps the second-factor mark on the new hash (password-marks.ts).
 */
export async function replacePasswordHash(db: Db, appId: string, userId: string, expected: string | null, passwordHash: string, now: string): Promise<boolean> {
  const rows = await db
    .updateTable('users')
    .set({ password_hash: storedPasswordHash(appId, userId, passwordHash), updated_at: now })
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
  /** A canonical BCP 47 tag, or null to forget it. */
  locale?: string | null;
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
      ...(changes.locale !== undefined && { locale: changes.locale }),
      updated_at: now,
    })
    .where('app_id', '=', appId)
    .where('id', '=', userId)
    .returning(USER_COLUMNS)
    .executeTakeFirst();
  return row && toUser(row);
}
