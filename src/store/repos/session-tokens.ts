import { sql, type QueryCreator } from 'kysely';
import { USER_COLUMNS, qualified } from '../columns.js';
import { compiledQuery } from '../compiled.js';
import { isSqlite, sqliteTransaction, type Db } from '../db.js';
import { inTransaction } from '../transaction.js';
import type { Database, UserRow } from '../types.js';
import { markActiveNow, markActiveUser } from './active-users.js';
import { liveKeyGate, tokenClaimsQuery, tokenClaimsStatement, type KeyGate } from './applications.js';
import { activeKidQuery, activeKidStatement } from './signing-keys.js';
import { claimRefreshTokenStatement } from './refresh-tokens.js';
import { userByIdQuery } from './users.js';

/**
 * The two writes every session token takes, each atomic: opening a session (sign-in) and rotating its
 * refresh token (refresh). The session row holds its refresh state (migration 0014), so each is one write
 * of one row. Both also answer the app's current signing kid and claims template, so the access token is signed without
 * another read. Two forms of the same statements:
 * - PostgreSQL: one statement (a data-modifying CTE and the reads), one round trip;
 * - SQLite: the compiled statements in one synchronous transaction (sqliteTransaction in store/db.ts,
 *   which waits for Kysely's connection when Kysely holds it).
 * The transaction lives here rather than in the service (services hold no SQL: docs/architecture.md) because its form is the
 * dialect's: services/sessions/sessions.ts sees one atomic call.
 */

/**
 * Values of a refresh rotation: the session the presented token names, the presented token's hash, the
 * new token's hash and generation, now, the month of now ('YYYY-MM') and the new expiry; `keyHash`, the
 * publishable key the route presumes (KeyGate: nothing is written unless it is live), or null when the
 * guard checked it.
 */
export interface RotationValues extends KeyGate {
  sessionId: string;
  tokenHash: string;
  newTokenHash: string;
  generation: number;
  month: string;
  expiresAt: string;
}

export interface Rotated {
  user: UserRow;
  /** The session's amr as stored (null: opened before migration 0024). */
  amr: string | null;
  /** When the user last proved who they are in the session (created_at for a session older than migration 0029). */
  authenticatedAt: string;
  /** The app's current signing kid; undefined if it has none. */
  kid: string | undefined;
  /** The app's custom claims template (JSON), or null: read in the same statement, so a change applies at the next refresh. */
  tokenClaims: string | null;
  activeOrgId?: string | null; // the session's active organisation (migration 0035): its claims are read only then
}

/**
 * The rotation itself: the session's current token becomes the new one, if the presented token is the
 * current one (its hash), the session is the app's and live, and the presumed key is live. Only one
 * caller can win: the conditional UPDATE is the whole check. The times of the last two rotations and the
 * last two months refreshed in move along (SET reads the row as it was).
 */
function rotationStatement(q: QueryCreator<Database>, v: Record<keyof RotationValues, unknown>) {
  return q
    .updateTable('sessions')
    .set((eb) => ({
      refresh_hash: v.newTokenHash as string,
      refresh_generation: v.generation as number,
      prior_rotated_at: eb.ref('rotated_at'),
      rotated_at: v.now as string,
      prior_refreshed_month: eb
        .case()
        .when('refreshed_month', '=', v.month as string)
        .then(eb.ref('prior_refreshed_month'))
        .else(eb.ref('refreshed_month'))
        .end(),
      refreshed_month: v.month as string,
      expires_at: v.expiresAt as string,
    }))
    .where('id', '=', v.sessionId as string)
    // Not an index condition, so the row is found by its key: as `app_id = ?` an unanalyzed table's generic plan took sessions_user_live (every live session of the app read a refresh).
    .where(sql<boolean>`(app_id = ${v.appId}) is true`)
    .where('refresh_hash', '=', v.tokenHash as string)
    // Likewise not `revoked_at IS NULL`, the predicate of the partial index sessions_user_live: a generic plan on
    // an unanalyzed table scanned that whole index with every condition as a filter (all the app's live sessions read a refresh).
    .where(sql<boolean>`(revoked_at is null) is true`)
    .where('expires_at', '>', v.now as string)
    .where((eb) => liveKeyGate(eb, v as unknown as KeyGate, 'publishable'))
    .returning(['app_id', 'user_id', 'prior_rotated_at', 'created_at', 'amr', 'authenticated_at', 'active_org_id']);
}

/**
 * Whether a rotation is the session's first activity of `month`: its previous one (the rotation before,
 * now prior_rotated_at, or else its start) was in another month. Only then does the refresh mark the user
 * active (migration 0022); a session's start marks its own month, so every later refresh of the same month
 * writes nothing more. Months compare as the 'YYYY-MM' prefix of ISO 8601 times.
 */
const firstActivityOfMonth = (session: { prior_rotated_at: string | null; created_at: string }, month: string) =>
  (session.prior_rotated_at ?? session.created_at).slice(0, 7) !== month;

const ROTATION_NAMES = ['appId', 'keyHash', 'sessionId', 'tokenHash', 'newTokenHash', 'generation', 'now', 'month', 'expiresAt'] as const;

const rotateQuery = compiledQuery(ROTATION_NAMES, (db, v) => rotationStatement(db, v));

/** PostgreSQL: the rotation, the user and the signing kid in one statement. */
const rotateOnPostgres = compiledQuery(ROTATION_NAMES, (db, v) =>
  db
    .with('session', (q) => rotationStatement(q, v))
    // The first refresh of a month marks the user active (firstActivityOfMonth, in SQL); a CTE that
    // modifies data runs whether or not the query reads it, and selecting nothing it writes nothing.
    .with('marked', (q) =>
      q
        .insertInto('active_users')
        .columns(['app_id', 'user_id', 'period'])
        .expression((eb) =>
          eb
            .selectFrom('session')
            .select(['session.app_id', 'session.user_id', sql.val(v.month).as('period')])
            .where(sql`substr(coalesce(session.prior_rotated_at, session.created_at), 1, 7)`, '<>', v.month),
        )
        .onConflict((oc) => oc.columns(['app_id', 'user_id', 'period']).doNothing())
        .returning(['app_id', 'user_id', 'period']),
    )
    .with('counted', (q) => countMarked(q))
    .selectFrom('session')
    .innerJoin('users', 'users.id', 'session.user_id')
    .select(qualified('users', USER_COLUMNS))
    .select('session.amr as session_amr')
    .select('session.authenticated_at as session_authenticated_at')
    .select('session.created_at as session_created_at')
    .select('session.active_org_id as session_active_org_id')
    .select(() => activeKidStatement(db, v.appId).as('kid'))
    .select(() => tokenClaimsStatement(db, v.appId).as('token_claims'))
    .where('users.app_id', '=', v.appId),
);

/**
 * Rotates the session's current refresh token: answers its user and the signing kid, or undefined when
 * the presumed key is not live, the presented token is not the session's current one, or the session is
 * not the app's or not live (nothing is written then).
 */
export async function rotateRefreshToken(db: Db, values: RotationValues): Promise<Rotated | undefined> {
  if (!isSqlite(db)) {
    const [row] = await rotateOnPostgres(db, values);
    if (!row) return undefined;
    const { kid, token_claims, session_amr, session_authenticated_at, session_created_at, session_active_org_id, ...user } = row;
    return { user, amr: session_amr ?? null, authenticatedAt: session_authenticated_at ?? session_created_at, kid: kid ?? undefined, tokenClaims: token_claims ?? null, activeOrgId: session_active_org_id ?? null };
  }
  return sqliteTransaction(db, (run) => {
    const [session] = run(rotateQuery.statement(db, values));
    if (!session) return undefined;
    if (firstActivityOfMonth(session, values.month)) markActiveNow(run, db, values.appId, session.user_id, values.month);
    const [user] = run(userByIdQuery.statement(db, { appId: values.appId, userId: session.user_id }));
    if (!user) return undefined;
    return {
      user,
      amr: session.amr ?? null,
      authenticatedAt: session.authenticated_at ?? session.created_at,
      kid: run(activeKidQuery.statement(db, { appId: values.appId }))[0]?.kid,
      tokenClaims: run(tokenClaimsQuery.statement(db, { appId: values.appId }))[0]?.token_claims ?? null,
      activeOrgId: session.active_org_id ?? null,
    };
  });
}

/**
 * Rotates a refresh token of the earlier form (a row of refresh_tokens, from before migration 0014): the
 * row is claimed (unrotated, unexpired: one caller wins) and its session, which must be the one the
 * service read for it, moves to the session-held form with the new token. Undefined, with nothing
 * written, when the claim or the session's move fails. Rare (tokens issued before the upgrade, for 30
 * days at most), so a plain Kysely transaction.
 */
export async function rotateEarlierRefreshToken(db: Db, values: Omit<RotationValues, 'keyHash'>): Promise<Rotated | undefined> {
  const rolledBack = new Error('rotation refused');
  try {
    return await inTransaction(db, async (trx) => {
      const claimed = await claimRefreshTokenStatement(trx, { appId: values.appId, keyHash: null, tokenHash: values.tokenHash, now: values.now }).executeTakeFirst();
      if (claimed?.session_id !== values.sessionId) throw rolledBack;
      const moved = await trx
        .updateTable('sessions')
        .set({ refresh_hash: values.newTokenHash, refresh_generation: values.generation, rotated_at: values.now, refreshed_month: values.month, expires_at: values.expiresAt })
        .where('id', '=', values.sessionId)
        .where('app_id', '=', values.appId)
        .where('refresh_hash', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', values.now)
        .returning(['user_id', 'created_at', 'authenticated_at'])
        .executeTakeFirst();
      if (!moved) throw rolledBack;
      await markActiveUser(trx, { appId: values.appId, userId: moved.user_id, period: values.month });
      const [user] = await userByIdQuery(trx, { appId: values.appId, userId: moved.user_id });
      if (!user) throw rolledBack;
      const [signing] = await activeKidQuery(trx, { appId: values.appId });
      const [claims] = await tokenClaimsQuery(trx, { appId: values.appId });
      return { user, amr: null, authenticatedAt: moved.authenticated_at ?? moved.created_at, kid: signing?.kid, tokenClaims: claims?.token_claims ?? null };
    });
  } catch (error) {
    if (error === rolledBack) return undefined;
    throw error;
  }
}

/** What a refused rotation looks at: the session's generation, the times of its last two rotations, and whether its user is banned. */
export async function findRefreshState(db: Db, appId: string, sessionId: string) {
  return db
    .selectFrom('sessions')
    .leftJoin('users', (join) => join.onRef('users.id', '=', 'sessions.user_id').onRef('users.app_id', '=', 'sessions.app_id'))
    .select(['sessions.refresh_generation', 'sessions.rotated_at', 'sessions.prior_rotated_at', 'users.banned'])
    .where('sessions.id', '=', sessionId)
    .where('sessions.app_id', '=', appId)
    .executeTakeFirst();
}

/** PostgreSQL: the count CTE over `marked` (one more active user in each marked row's slot). */
export function countMarked<DB extends Database & { marked: { app_id: string; user_id: string; period: string } }>(q: QueryCreator<DB>) {
  const w = q as unknown as QueryCreator<Database & { marked: { app_id: string; user_id: string; period: string } }>;
  return w
    .insertInto('active_user_counts')
    .columns(['app_id', 'period', 'slot', 'users'])
    .expression((eb) => eb.selectFrom('marked').select(['marked.app_id', 'marked.period', sql<string>`substr(marked.user_id, 1, 1)`.as('slot'), sql<number>`1`.as('users')]))
    .onConflict((oc) => oc.columns(['app_id', 'period', 'slot']).doUpdateSet((eb) => ({ users: eb('active_user_counts.users', '+', 1) })))
    .returning('active_user_counts.app_id');
}
