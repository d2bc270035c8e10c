import { sql } from 'kysely';
import { compiledQuery } from '../compiled.js';
import { isSqlite, sqliteTransaction, type Db } from '../db.js';
import { markActiveNow } from './active-users.js';
import { tokenClaimsQuery, tokenClaimsStatement } from './applications.js';
import { GATED_EVENT_NAMES, gatedEventCtes, gatedEventValues, insertEventNow, type EventDeliveries, type EventRow } from './events.js';
import { countMarked } from './session-tokens.js';
import { insertSessionQuery, insertUnbannedSession } from './sessions.js';
import { activeKidQuery, activeKidStatement } from './signing-keys.js';

// Opening a session (a sign-in): the session row, the user's monthly activity mark and the session.created
// event (with its day's count and webhook deliveries) in one atomic write. PostgreSQL: one statement (each
// write a CTE gated on the session's insert), one round trip; SQLite: compiled statements in one synchronous
// transaction (sqliteTransaction). See store/repos/session-tokens.ts for why the transaction lives here.

/** Values of a new session: its id, user, the refresh token's hash, now and the expiry of both. */
export interface OpeningValues {
  appId: string;
  sessionId: string;
  userId: string;
  tokenHash: string;
  now: string;
  expiresAt: string;
  /** Where the session is opened from, as the client sent it (shown in the user's list of sessions). */
  userAgent: string | null;
  ip: string | null;
  /** How the session was opened, comma-separated amr values. */
  amr: string;
  /** The session.created event (docs/events.md), written only if the session is. */
  event: { row: EventRow; deliveries: EventDeliveries };
}

const OPENING_NAMES = ['appId', 'sessionId', 'userId', 'tokenHash', 'now', 'month', 'expiresAt', 'userAgent', 'ip', 'amr', ...GATED_EVENT_NAMES] as const;

/** PostgreSQL: the session (while its user is not banned: insertUnbannedSession), its mark, its event and the signing kid read, in one statement. */
const openOnPostgres = compiledQuery(OPENING_NAMES, (db, v) => {
  const event = gatedEventCtes(v, 'session');
  return (
    db
      .with('session', (q) =>
        insertUnbannedSession(
          q,
          {
            id: v.sessionId,
            app_id: v.appId,
            user_id: v.userId,
            created_at: v.now,
            expires_at: v.expiresAt,
            refresh_hash: v.tokenHash,
            user_agent: v.userAgent,
            ip: v.ip,
            amr: v.amr,
          },
          'postgres',
        ),
      )
      // The user is active in the session's month (migration 0022), counted when this inserts the mark; no session, no mark.
      .with('marked', (q) =>
        q
          .insertInto('active_users')
          .columns(['app_id', 'user_id', 'period'])
          .expression((eb) => eb.selectFrom('session').select(['session.app_id', 'session.user_id', sql<string>`cast(${v.month} as text)`.as('period')]))
          .onConflict((oc) => oc.columns(['app_id', 'user_id', 'period']).doNothing())
          .returning(['app_id', 'user_id', 'period']),
      )
      .with('counted', (q) => countMarked(q))
      // session.created, its count and deliveries: no session, none of them.
      .with('ev', (q) => event.event(q as never))
      .with('ev_count', (q) => event.count(q as never))
      .with('ev_deliveries', (q) => event.deliveries(q as never))
      .selectFrom('session')
      .select('session.id')
      .select(() => activeKidStatement(db, v.appId).as('kid'))
      .select(() => tokenClaimsStatement(db, v.appId).as('token_claims'))
  );
});

/**
 * Opens a session for the user holding its first refresh token (as its hash, generation 0), unless the user is banned
 * (or gone) when the statement runs: then undefined, nothing written. Answers the app's signing kid and claims template.
 */
export async function openSession(db: Db, values: OpeningValues): Promise<{ kid: string | undefined; tokenClaims: string | null } | undefined> {
  const { event, ...session } = values;
  if (!isSqlite(db)) {
    const [row] = await openOnPostgres(db, { ...session, month: values.now.slice(0, 7), ...gatedEventValues(event.row, event.deliveries) });
    return row && { kid: row.kid ?? undefined, tokenClaims: row.token_claims ?? null };
  }
  return sqliteTransaction(db, (run) => {
    const opened = run(
      insertSessionQuery.statement(db, {
        id: values.sessionId,
        app_id: values.appId,
        user_id: values.userId,
        created_at: values.now,
        expires_at: values.expiresAt,
        refresh_hash: values.tokenHash,
        user_agent: values.userAgent,
        ip: values.ip,
        amr: values.amr,
      }),
    );
    if (opened.length === 0) return undefined;
    markActiveNow(run, db, values.appId, values.userId, values.now.slice(0, 7));
    insertEventNow(run, db, event.row, event.deliveries);
    return { kid: run(activeKidQuery.statement(db, { appId: values.appId }))[0]?.kid, tokenClaims: run(tokenClaimsQuery.statement(db, { appId: values.appId }))[0]?.token_claims ?? null };
  });
}
