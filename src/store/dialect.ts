// The only place that asks which database it is: capability flags and error shapes.

export type DialectName = 'sqlite' | 'postgres';

/** True when a write failed on a unique or primary-key constraint, on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | undefined;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when a query named a table that does not exist (a database no migration has run on yet). */
export function isUndefinedTable(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return e?.code === '42P01' || (e?.code === 'SQLITE_ERROR' && /^no such table/.test(e.message ?? ''));
}

/** Why the database could not serve a query, as a short label for logs and metrics. */
export type ConnectionFailure =
  | 'refused'
  | 'unreachable'
  | 'reset'
  | 'shutting_down'
  | 'starting_up'
  | 'too_many_connections'
  | 'pool_timeout'
  | 'query_timeout'
  | 'busy'
  | 'deadlock'
  | 'serialization'
  | 'lock_timeout'
  | 'cannot_open';

const BY_CODE: Record<string, ConnectionFailure> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  ETIMEDOUT: 'unreachable',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  '57P01': 'shutting_down', // admin_shutdown: the server is stopping or restarting
  '57P02': 'shutting_down', // crash_shutdown
  '57P03': 'starting_up', // cannot_connect_now: the server is starting or recovering
  '53300': 'too_many_connections',
  '57014': 'query_timeout', // query_canceled: statement_timeout
  '25P03': 'query_timeout', // idle_in_transaction_session_timeout
  // Contention, not a bug: PostgreSQL ended one of two transactions so the other could go on (a deadlock,
  // or a serializable transaction that lost), or a statement waited past lock_timeout (a migration holding
  // a lock). The same request may simply be sent again, as after SQLITE_BUSY.
  '40P01': 'deadlock', // deadlock_detected
  '40001': 'serialization', // serialization_failure
  '55P03': 'lock_timeout', // lock_not_available
  SQLITE_BUSY: 'busy', // busy_timeout ran out waiting for the write lock
  SQLITE_BUSY_SNAPSHOT: 'busy',
  SQLITE_BUSY_TIMEOUT: 'busy',
  SQLITE_CANTOPEN: 'cannot_open',
};

// node-postgres and its pool say these in words only.
const BY_MESSAGE: Array<[RegExp, ConnectionFailure]> = [
  [/^timeout exceeded when trying to connect$/, 'pool_timeout'],
  [/^Connection terminated due to connection timeout$/, 'pool_timeout'],
  [/^Query read timeout$/, 'query_timeout'],
  [/^Connection terminated( unexpectedly)?$/, 'reset'],
  [/is not queryable$/, 'reset'],
];

/**
 * The connection-class failure behind `error`, or undefined for anything else. These are outages, not
 * bugs: the request is answered 503 with Retry-After and the same request may simply be sent again.
 */
export function connectionFailure(error: unknown): ConnectionFailure | undefined {
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && BY_CODE[e.code]) return BY_CODE[e.code];
    if (typeof e.message === 'string') {
      const found = BY_MESSAGE.find(([pattern]) => pattern.test(e!.message as string));
      if (found) return found[1];
    }
  }
  return undefined;
}

/** True when the database could not be reached or answer in time (health and API routes answer 503). */
export function isConnectionError(error: unknown): boolean {
  return connectionFailure(error) !== undefined;
}

/** PostgreSQL claims queue rows with FOR UPDATE SKIP LOCKED; SQLite serializes writers anyway. */
export function supportsSkipLocked(dialect: DialectName): boolean {
  return dialect === 'postgres';
}
