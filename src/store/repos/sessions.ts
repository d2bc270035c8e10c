import { sql, type ExpressionBuilder, type QueryCreator } from 'kysely';
import type { Db } from '../db.js';
import { compiledQuery } from '../compiled.js';
import type { Database, SessionRow } from '../types.js';
import { wroteOne } from './conditional-write.js';

/** Values of a new session's row. */
export interface NewSessionValues {
  id: string;
  app_id: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  refresh_hash: string;
  user_agent: string | null;
  ip: string | null;
  amr: string;
}

/**
 * Inserts the session only while its user is not banned, in one statement: the row is made from the user's
 * row read with a share lock (PostgreSQL), so a ban committing meanwhile either comes first (the statement
 * waits for it, reads banned = 1 and inserts nothing) or after (its revoking UPDATE, a later statement of the
 * ban's transaction, sees this session and ends it). A sign-in that read the user just before a ban can
 * therefore never leave a live session. Returns the session's id, app and user; nothing when the user is
 * banned or gone. On SQLite the write transaction is serial, and the read is the latest committed.
 */
export function insertUnbannedSession(q: QueryCreator<Database>, v: Record<keyof NewSessionValues, string>, dialect: 'postgres' | 'sqlite') {
  const text = (value: string) => sql<string>`cast(${value} as text)`;
  const select = q
    .selectFrom('users')
    .select([
      text(v.id).as('id'),
      'users.app_id',
      'users.id as user_id',
      text(v.created_at).as('created_at'),
      text(v.expires_at).as('expires_at'),
      // A session opens at a sign-in: the user proved who they are now (authenticated_at, migration 0025).
      text(v.created_at).as('authenticated_at'),
      text(v.expires_at).as('sweep_after'),
      sql<null>`null`.as('revoked_at'),
      text(v.refresh_hash).as('refresh_hash'),
      text(v.user_agent).as('user_agent'),
      text(v.ip).as('ip'),
      text(v.amr).as('amr'),
    ])
    .where('users.id', '=', v.user_id)
    .where('users.app_id', '=', v.app_id)
    .where('users.banned', '=', 0);
  return q
    .insertInto('sessions')
    .columns(['id', 'app_id', 'user_id', 'created_at', 'expires_at', 'authenticated_at', 'sweep_after', 'revoked_at', 'refresh_hash', 'user_agent', 'ip', 'amr'])
    .expression(dialect === 'postgres' ? select.forShare() : select)
    .returning(['id', 'app_id', 'user_id']);
}

/** SQLite's form of insertUnbannedSession, compiled once. */
export const insertSessionQuery = compiledQuery(['id', 'app_id', 'user_id', 'created_at', 'expires_at', 'refresh_hash', 'user_agent', 'ip', 'amr'], (db, v) =>
  insertUnbannedSession(db, v, 'sqlite'),
);

type SessionsEb = ExpressionBuilder<Database, 'sessions'>;

/** Not revoked yet: every revoking write matches only these, so of racing revokes one ends the session. */
const unrevoked = (eb: SessionsEb) => eb('revoked_at', 'is', null);

/** A session that still authenticates at `now`: not revoked, not expired. */
const liveSession = (now: string) => (eb: SessionsEb) => eb.and([unrevoked(eb), eb('expires_at', '>', now)]);

/** The user's sessions in the app: both keys, in every statement about one user's own sessions. */
const userSessions = (appId: string, userId: string) => (eb: SessionsEb) => eb.and([eb('app_id', '=', appId), eb('user_id', '=', userId)]);

/** The session if it belongs to the app, is not revoked and has not expired; else undefined. */
export async function findLiveSession(db: Db, appId: string, sessionId: string, now: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('id', '=', sessionId).where('app_id', '=', appId).where(liveSession(now)).executeTakeFirst();
}

/** The revoke the clean-up follows up (see revokeSession): ends the app's unrevoked sessions that the caller's conditions select. */
function revokeForSweep(db: Db, appId: string, now: string) {
  return db.updateTable('sessions').set({ revoked_at: now, sweep_after: now }).where('app_id', '=', appId).where(unrevoked);
}

/**
 * Revokes the session if it is live; its user's id when this call revoked it, else undefined. `sweep_after`
 * moves to now: the clean-up looks at the session again once the retention after its revocation has passed.
 */
export async function revokeSession(db: Db, appId: string, sessionId: string, now: string): Promise<string | undefined> {
  const row = await revokeForSweep(db, appId, now).where('id', '=', sessionId).returning('user_id').executeTakeFirst();
  return row?.user_id;
}

/**
 * Revokes every unrevoked session of the user (pre-hijacking rule, password reset, ban); answers the ids of
 * those that were live (an expired one is revoked too, so the clean-up takes it sooner, but ended already).
 */
export async function revokeUserSessions(db: Db, appId: string, userId: string, now: string): Promise<string[]> {
  const rows = await revokeForSweep(db, appId, now).where('user_id', '=', userId).returning(['id', 'expires_at']).execute();
  return rows.filter((row) => row.expires_at > now).map((row) => row.id);
}

/** A live session as its user sees it in "where you're signed in". */
export type LiveSession = Pick<SessionRow, 'id' | 'created_at' | 'rotated_at' | 'expires_at' | 'user_agent' | 'ip' | 'amr'>;

/**
 * The user's live sessions, newest first: a walk of the partial index of unrevoked sessions
 * (sessions_user_live, migration 0021) for this user, bounded by what it returns (expired ones are
 * skipped; the clean-up removes them).
 */
export async function listLiveUserSessions(db: Db, appId: string, userId: string, now: string, limit: number): Promise<LiveSession[]> {
  return db
    .selectFrom('sessions')
    .select(['id', 'created_at', 'rotated_at', 'expires_at', 'user_agent', 'ip', 'amr'])
    .where(userSessions(appId, userId))
    .where(liveSession(now))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The user's own revoke from "where you're signed in": ends the live sessions of theirs the caller narrows down. */
function revokeOwnLive(db: Db, appId: string, userId: string, now: string) {
  return db.updateTable('sessions').set({ revoked_at: now }).where(userSessions(appId, userId)).where(liveSession(now)).returning('id');
}

/** Revokes the session if it is the user's own and live; true when this call revoked it. */
export async function revokeUserSession(db: Db, appId: string, userId: string, sessionId: string, now: string): Promise<boolean> {
  return wroteOne(revokeOwnLive(db, appId, userId, now).where('id', '=', sessionId));
}

/** Revokes every live session of the user but `keepSessionId`; answers the ids of those it revoked. */
export async function revokeOtherUserSessions(db: Db, appId: string, userId: string, keepSessionId: string, now: string): Promise<string[]> {
  const rows = await revokeOwnLive(db, appId, userId, now).where('id', '!=', keepSessionId).execute();
  return rows.map((row) => row.id);
}

/** Sets a live session's amr (a second factor enrolled from it); false when it is not live. */
export async function setSessionAmr(db: Db, appId: string, sessionId: string, amr: string, now: string): Promise<boolean> {
  return wroteOne(db.updateTable('sessions').set({ amr }).where('id', '=', sessionId).where('app_id', '=', appId).where(liveSession(now)).returning('id'));
}
