import { ApiError, badRequest } from '../../errors.js';
import { isIndexedType } from '../../store/repos/custom-rows.js';
import type { ColumnType } from '../../store/tables-dialect.js';

// Values of custom-table columns: what each type accepts, and the size a row's data counts for.

export const NAME_PATTERN = '^[a-z][a-z0-9_]{0,62}$';
export const MAX_ROW_BYTES = 256 * 1024;
/** PostgreSQL b-tree entries must stay under ~2.7 kB; every text column is indexed, so text is capped on both databases. */
export const MAX_TEXT_BYTES = 2048;

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** An ISO 8601 date or date-time, normalised to `YYYY-MM-DDTHH:mm:ss.sssZ` (sorts as text), or undefined. */
export function normaliseDate(value: string): string | undefined {
  const m = DATE.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m;
  if (Number(y) < 1 || Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(h ?? 0) > 23 || Number(mi ?? 0) > 59 || Number(s ?? 0) > 59) return undefined;
  // Day in range for that month (Date would roll 2026-02-30 over into March).
  const monthDays = new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate();
  if (Number(d) > monthDays) return undefined;
  const time = Date.parse(h === undefined ? `${y}-${mo}-${d}T00:00:00Z` : value.replace(/(\.\d{3})\d+/, '$1'));
  if (!Number.isFinite(time)) return undefined;
  const out = new Date(time).toISOString();
  return /^\d{4}-/.test(out) ? out : undefined;
}

/** The value as stored for `type`, or an ApiError naming `field`. `null` is handled by the caller. */
export function checkValue(type: ColumnType, field: string, value: unknown): unknown {
  const wrong = (what: string) => badRequest(`${field}: expected ${what}`);
  switch (type) {
    case 'int':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw wrong('a safe integer');
      return value;
    case 'float':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw wrong('a finite number');
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw wrong('true or false');
      return value;
    case 'text':
      if (typeof value !== 'string') throw wrong('a string');
      if (Buffer.byteLength(value) > MAX_TEXT_BYTES) throw badRequest(`${field}: text values are at most ${MAX_TEXT_BYTES} bytes (use a json column for longer text)`);
      return value;
    case 'date': {
      const date = typeof value === 'string' ? normaliseDate(value) : undefined;
      if (date === undefined) throw wrong('an ISO 8601 date or date-time with a time zone (years 0001-9999)');
      return date;
    }
    case 'json':
      return value;
  }
}

/** The UTF-8 size of the row's data as JSON (null fields are absent): what the 256 KiB row limit counts. */
export function dataBytes(data: Record<string, unknown>): number {
  return Buffer.byteLength(JSON.stringify(data));
}

/**
 * What a row costs the database beside its data, measured (docs/tables.md, "What storage counts"): its
 * fixed fields with the primary key and three indexes (SQLite ~320 bytes, PostgreSQL ~690).
 */
export const ROW_OVERHEAD_BYTES = 500;
/** An entry in a column's (value, row_id) index, null or not (SQLite ~50 bytes, PostgreSQL ~97). */
export const INDEXED_VALUE_OVERHEAD_BYTES = 64;
/** A text value is in the row and again in its index, whose pages split and overflow: ~2.4-6x its size measured. */
export const INDEXED_TEXT_FACTOR = 3;

/**
 * What a table costs before its rows: its heap, primary key, three fixed indexes and TOAST table, each a
 * first page or two (SQLite ~20 kB in 4 kB pages, PostgreSQL ~80 kB in 8 kB pages with a metapage each).
 */
export const TABLE_OVERHEAD_BYTES = 40 * 1024;
/** What each indexed column's own index costs before its entries: a metapage and a first leaf on PostgreSQL (16 kB), a root page on SQLite (4 kB). */
export const INDEXED_COLUMN_OVERHEAD_BYTES = 16 * 1024;

/** The columns' shape a row's cost depends on. */
export interface CostColumn {
  name: string;
  type: ColumnType;
}

/** What storage counts for a table beside its rows: the table's and each indexed column's first pages. */
export function tableCost(columns: readonly { type: ColumnType }[]): number {
  return TABLE_OVERHEAD_BYTES + INDEXED_COLUMN_OVERHEAD_BYTES * columns.filter((c) => isIndexedType(c.type)).length;
}

/**
 * What storage counts for a row (docs/tables.md): its data's UTF-8 JSON size, plus a per-row overhead,
 * plus for every indexed column (every type but json) an index entry, null or not, and a text value's
 * bytes three times more. Keeps the database's growth within 2x of the count for any table shape.
 */
export function rowCost(columns: readonly CostColumn[], data: Record<string, unknown>): number {
  let bytes = dataBytes(data) + ROW_OVERHEAD_BYTES;
  for (const c of columns) {
    if (!isIndexedType(c.type)) continue;
    bytes += INDEXED_VALUE_OVERHEAD_BYTES;
    const value = Object.hasOwn(data, c.name) ? data[c.name] : undefined;
    if (c.type === 'text' && typeof value === 'string') bytes += INDEXED_TEXT_FACTOR * Buffer.byteLength(value);
  }
  return bytes;
}

export function checkRowSize(bytes: number): void {
  if (bytes > MAX_ROW_BYTES) throw new ApiError(413, 'row_too_large', `row data is ${bytes} bytes; the limit is ${MAX_ROW_BYTES} (256 KiB)`);
}
