import { sql, type QueryCreator } from 'kysely';
import { USER_COLUMNS, qualified } from '../columns.js';
import { compiledQuery } from '../compiled.js';
import { isSqlite, sqliteTransaction, type Db } from '../db.js';
import type { Database, UserRow } from '../types.js';
import { activeKidQuery, activeKidStatement } from './signing-keys.js';
import { claimRefreshTokenQuery, claimRefreshTokenStatement, insertRefreshTokenQuery } from './refresh-tokens.js';
import { extendLiveSessionQuery, insertSessionQuery } from './sessions.js';
import { userByIdQuery } from './users.js';

/**
 * The two writes every session token takes, each atomic: opening a session (sign-in) and rotating its
 * refresh token (refresh). Both also answer the app's current signing kid, so the access token is signed
 * without another read. Two forms of the same statements:
 * - PostgreSQL: one statement (data-modifying CTEs; a statement is atomic on its own), one round trip
 *   instead of begin, the writes, commit and the reads. PostgreSQL-specific: a PostgreSQL-wire database
 *   that refuses two modifications of one table in a statement (CockroachDB by default) needs the
 *   transaction form;
 * - SQLite: the compiled statements in one synchronous transaction (sqliteTransaction in store/db.ts,
 *   which waits for Kysely's connection when Kysely holds it).
 * The transaction lives here rather than in the service (STYLE.md's rule) because its form is the
 * dialect's: services/sessions.ts sees one atomic call.
 */

/**
 * Values of a refresh rotation: the presented token's hash, the new token's hash, now and the new expiry;
 * `keyHash`, the publishable key the route presumes (KeyGate: nothing is written unless it is live), or
 * null when the guard checked it.
 */
export interface RotationValues {
  appId: string;
  keyHash: string | null;
  tokenHash: string;
  newTokenHash: string;
  now: string;
  expiresAt: string;
}

export interface Rotated {
  sessionId: string;
  user: UserRow;
  /** The app's current signing kid; undefined if it has none. */
  kid: string | undefined;
}

/** PostgreSQL: inserts a refresh token for the session the statement's `session` CTE wrote (none if it wrote none). */
function issueTokenOf<DB extends Database & { session: { id: string } }>(q: QueryCreator<DB>, v: { tokenHash: string; appId: string; now: string; expiresAt: string }) {
  return (q as unknown as QueryCreator<Database & { session: { id: string } }>)
    .insertInto('refresh_tokens')
    .columns(['token_hash', 'app_id', 'session_id', 'created_at', 'expires_at', 'rotated_at'])
    .expression((eb) =>
      eb
        .selectFrom('session')
        .select([
          eb.val(v.tokenHash).as('token_hash'),
          eb.val(v.appId).as('app_id'),
          'session.id',
          eb.val(v.now).as('created_at'),
          eb.val(v.expiresAt).as('expires_at'),
          sql<null>`null`.as('rotated_at'),
        ]),
    )
    .returning('session_id');
}

/**
 * PostgreSQL: claims the presented token (unrotated, unexpired), slides its live session, stores the new
 * token and reads the user and the signing kid, in one statement. No row when the token or its session is
 * not live; what was written stays written, as in the transaction form (the claim is what makes a second
 * presentation of the token lose).
 */
const rotateOnPostgres = compiledQuery(['appId', 'keyHash', 'tokenHash', 'newTokenHash', 'now', 'expiresAt'], (db, v) =>
  db
    .with('claimed', (q) => claimRefreshTokenStatement(q, v))
    .with('session', (q) =>
      q
        .updateTable('sessions')
        .set({ expires_at: v.expiresAt })
        .where((eb) => eb('id', '=', eb.selectFrom('claimed').select('claimed.session_id')))
        .where('app_id', '=', v.appId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', v.now)
        .returning(['id', 'user_id']),
    )
    .with('issued', (q) => issueTokenOf(q, { tokenHash: v.newTokenHash, appId: v.appId, now: v.now, expiresAt: v.expiresAt }))
    .selectFrom('issued')
    .innerJoin('session', 'session.id', 'issued.session_id')
    .innerJoin('users', 'users.id', 'session.user_id')
    .select(qualified('users', USER_COLUMNS))
    .select('issued.session_id')
    .select(() => activeKidStatement(db, v.appId).as('kid'))
    .where('users.app_id', '=', v.appId),
);

/**
 * Rotates a live refresh token of the app: the presented one is marked rotated, its session slides to
 * `expiresAt`, the new one is stored; answers the session, its user and the signing kid. Undefined when
 * the presumed key is not live (nothing written), the presented token is not the app's, already rotated or
 * expired, or its session is not live (what was written stays written: the claim is what makes a second
 * presentation of the token lose).
 */
export async function rotateRefreshToken(db: Db, values: RotationValues): Promise<Rotated | undefined> {
  if (!isSqlite(db)) {
    const [row] = await rotateOnPostgres(db, values);
    if (!row) return undefined;
    const { session_id: sessionId, kid, ...user } = row;
    return { sessionId, user, kid: kid ?? undefined };
  }
  return sqliteTransaction(db, (run) => {
    const [claimed] = run(claimRefreshTokenQuery.statement(db, values));
    if (!claimed) return undefined;
    const sessionId = claimed.session_id;
    const [session] = run(extendLiveSessionQuery.statement(db, { ...values, sessionId }));
    if (!session) return undefined;
    run(insertRefreshTokenQuery.statement(db, newToken(values.appId, sessionId, values.newTokenHash, values.now, values.expiresAt)));
    const [user] = run(userByIdQuery.statement(db, { appId: values.appId, userId: session.user_id }));
    if (!user) return undefined;
    return { sessionId, user, kid: run(activeKidQuery.statement(db, { appId: values.appId }))[0]?.kid };
  });
}

const newToken = (appId: string, sessionId: string, tokenHash: string, now: string, expiresAt: string) => ({
  token_hash: tokenHash,
  app_id: appId,
  session_id: sessionId,
  created_at: now,
  expires_at: expiresAt,
});

/** Values of a new session: its id, user, the refresh token's hash, now and the expiry of both. */
export interface OpeningValues {
  appId: string;
  sessionId: string;
  userId: string;
  tokenHash: string;
  now: string;
  expiresAt: string;
}

/** PostgreSQL: the session, its refresh token and the signing kid read, in one statement. */
const openOnPostgres = compiledQuery(['appId', 'sessionId', 'userId', 'tokenHash', 'now', 'expiresAt'], (db, v) =>
  db
    .with('session', (q) =>
      q
        .insertInto('sessions')
        .values({ id: v.sessionId, app_id: v.appId, user_id: v.userId, created_at: v.now, expires_at: v.expiresAt, revoked_at: null })
        .returning('id'),
    )
    .with('issued', (q) => issueTokenOf(q, v))
    .selectFrom('issued')
    .select('issued.session_id')
    .select(() => activeKidStatement(db, v.appId).as('kid')),
);

/**
 * Opens a session for the user with its first refresh token (stored as its hash); answers the app's
 * current signing kid (undefined if it has none).
 */
export async function openSession(db: Db, values: OpeningValues): Promise<{ kid: string | undefined }> {
  if (!isSqlite(db)) {
    const [row] = await openOnPostgres(db, values);
    return { kid: row?.kid ?? undefined };
  }
  return sqliteTransaction(db, (run) => {
    run(insertSessionQuery.statement(db, { id: values.sessionId, app_id: values.appId, user_id: values.userId, created_at: values.now, expires_at: values.expiresAt }));
    run(insertRefreshTokenQuery.statement(db, newToken(values.appId, values.sessionId, values.tokenHash, values.now, values.expiresAt)));
    return { kid: run(activeKidQuery.statement(db, { appId: values.appId }))[0]?.kid };
  });
}
