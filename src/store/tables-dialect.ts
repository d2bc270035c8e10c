import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from './dialect.js';

// Custom tables: the only place that asks which database it is. Column types, value encoding in and
// out, row locks and the "table is gone" error shape.

export type ColumnType = 'text' | 'int' | 'bool' | 'float' | 'date' | 'json';

/**
 * Real types per database. Text compares by code point on both (SQLite BINARY, PostgreSQL "C"), so
 * sort order and `contains` (ASCII case folding by lower()) are the same on both.
 */
const COLUMN_TYPES: Record<DialectName, Record<ColumnType, string>> = {
  sqlite: { text: 'text', int: 'integer', bool: 'integer', float: 'real', date: 'text', json: 'text' },
  postgres: { text: 'text collate "C"', int: 'bigint', bool: 'boolean', float: 'double precision', date: 'timestamptz', json: 'jsonb' },
};

export function columnTypeSql(dialect: DialectName, type: ColumnType): RawBuilder<unknown> {
  return sql.raw(COLUMN_TYPES[dialect][type]);
}

/** A validated value as a bound parameter of this database. */
export function encodeValue(dialect: DialectName, type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'bool' && dialect === 'sqlite') return value ? 1 : 0;
  if (type === 'json') return JSON.stringify(value);
  return value;
}

/** A stored value back as the API shows it (dates as ISO 8601 UTC with milliseconds). */
export function decodeValue(dialect: DialectName, type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'bool':
      return value === true || value === 1;
    case 'json':
      return dialect === 'sqlite' ? JSON.parse(value as string) : value;
    case 'date':
      return value instanceof Date ? value.toISOString() : value;
    case 'int':
    case 'float':
      return Number(value);
    default:
      return value;
  }
}

const UTC_TIMESTAMPTZ = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * PostgreSQL's text form of a `timestamptz` (custom-table `date` columns, the only ones) straight to the
 * API's form (`YYYY-MM-DDTHH:mm:ss.sssZ`) when the session shows UTC, which skips a `Date` per value;
 * `fallback` (node-postgres' own parser) for any other offset.
 */
export function timestamptzText(fallback: (text: string) => Date): (text: string) => string {
  return (text) => {
    const m = UTC_TIMESTAMPTZ.exec(text);
    if (!m) return fallback(text).toISOString();
    // Dates are written with milliseconds: more digits only come from outside the API and are truncated, as a Date would.
    return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  };
}

/**
 * True where the database's own order puts nulls after the values ascending and before them descending,
 * the contract's order (PostgreSQL); SQLite orders them the other way. Where it holds, one index scan of
 * (value, row_id) serves a page that spans both.
 */
export const nullsSortHigh = (dialect: DialectName): boolean => dialect === 'postgres';

/**
 * The segments a keyset page reads, in order. Nulls come after the values ascending and before them
 * descending, each segment an index range; from the start, a database that orders nulls that way itself
 * reads both in one scan.
 */
export function sortSegments(dialect: DialectName, nullable: boolean, fromStart: boolean, dir: 'asc' | 'desc'): Array<'values' | 'nulls' | 'all'> {
  if (!nullable) return ['values'];
  if (fromStart && nullsSortHigh(dialect)) return ['all'];
  return dir === 'asc' ? ['values', 'nulls'] : ['nulls', 'values'];
}

/**
 * True where a query keeps the table's metadata in memory and checks its schema version in the page's own
 * statement (PostgreSQL: saves a round trip). On SQLite the metadata read is an in-process call of about
 * 25 us, cheaper than the check (the joined statement's materialised page and re-sort cost about 50 us per
 * request in a micro-benchmark), so a query reads the metadata afresh.
 */
export const cachesTableMetadata = (dialect: DialectName): boolean => dialect === 'postgres';

/** `for update` / `for share` on PostgreSQL; nothing on SQLite, whose BEGIN IMMEDIATE already serialises writers. */
export function lockClause(dialect: DialectName, mode: 'update' | 'share'): RawBuilder<unknown> {
  if (dialect === 'sqlite') return sql.raw('');
  // key share: row writers do not block each other, yet wait for a schema change's for update.
  return sql.raw(mode === 'update' ? ' for update' : ' for key share');
}

/**
 * True where a data-modifying CTE can sum what its DELETE removed in one statement (PostgreSQL); SQLite
 * has none, and sums first: its BEGIN IMMEDIATE transaction lets no writer in between the two.
 */
export const sumsDeletedRows = (dialect: DialectName): boolean => dialect === 'postgres';

/** True when a statement failed because the data table was dropped meanwhile (a table deleted mid-request). */
export function isMissingTable(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return e?.code === '42P01' || (e?.code === 'SQLITE_ERROR' && /no such table/.test(e.message ?? ''));
}
