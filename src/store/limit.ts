import { sql, type RawBuilder } from 'kysely';

/**
 * A LIMIT (or OFFSET) written into the SQL text as a literal instead of a bound parameter.
 *
 * SQLite (as better-sqlite3 builds it) marks a bound LIMIT as a value that may change the query plan,
 * so every execution that binds it re-prepares the whole statement: the /v1/me join took 46 µs with
 * `limit ?` and 7 µs with `limit 1` (bench/README.md). A literal keeps the statement prepared once per
 * distinct value; the statement cache bounds how many are kept. Only a safe non-negative integer is
 * ever written into SQL.
 */
export function rowLimit(n: number): RawBuilder<number> {
  return sql.lit(checked(n));
}

/** rowLimit for SQL text built by hand. */
export function rowLimitText(n: number): string {
  return String(checked(n));
}

function checked(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`a row limit must be a non-negative integer, not ${n}`);
  return n;
}
