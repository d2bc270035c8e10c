// The only place that asks which database it is: capability flags and error shapes.

export type DialectName = 'sqlite' | 'postgres';

/** True when a write failed on a unique or primary-key constraint, on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | undefined;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when the database could not be reached at all (health answers 503). */
export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: string } | undefined;
  return ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', '57P01', '57P03', 'SQLITE_CANTOPEN'].includes(e?.code ?? '');
}
