import type { DialectName } from '../../store/dialect.js';
import type { CustomColumn, CustomTable } from '../../store/repos/custom-tables.js';
import { columnIdent, type StoredRow } from '../../store/repos/custom-rows.js';
import { decodeValue } from '../../store/tables-dialect.js';
import { orgOfOwnerKey } from '../../store/repos/organizations.js';
import { rowCost } from './values.js';

// Records as the API shows them (docs/tables.md), and a stored row's data and size.

export interface TableRecord {
  table_id: string;
  name: string;
  columns: ColumnRecord[];
  created_at: string;
  updated_at: string;
}

export interface ColumnRecord {
  column_id: string;
  name: string;
  type: CustomColumn['type'];
  required: boolean;
  default_value: unknown;
  position: number;
}

/**
 * The value a record holds under a field name, or undefined when it holds none. Names are user text and
 * records are plain objects, so only an own key counts: a column may be named like an inherited property
 * (`constructor`).
 */
export const fieldValue = (record: Record<string, unknown>, name: string): unknown => (Object.hasOwn(record, name) ? record[name] : undefined);

export interface RowRecord {
  row_id: string;
  data: Record<string, unknown>;
  user_id: string | null;
  /** The organisation that owns the row (docs/organizations.md), or null. */
  organization_id: string | null;
  /** Who wrote the row (a session's user), or null (the secret key, or before migration 0035). */
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export const columnRecord = (c: CustomColumn): ColumnRecord => ({
  column_id: c.id,
  name: c.name,
  type: c.type,
  required: c.required,
  default_value: c.defaultValue,
  position: c.position,
});

export const tableRecord = (t: CustomTable): TableRecord => ({
  table_id: t.id,
  name: t.name,
  columns: t.columns.map(columnRecord),
  created_at: t.createdAt,
  updated_at: t.updatedAt,
});

/** A column and the key of its value in a stored row, worked out once for all the rows of a read. */
type ColumnReader = { column: CustomColumn; key: string };
const readersOf = (columns: CustomColumn[]): ColumnReader[] => columns.map((column) => ({ column, key: columnIdent(column.id) }));

function dataOf(dialect: DialectName, readers: ColumnReader[], row: StoredRow): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const { column, key } of readers) {
    const value = decodeValue(dialect, column.type, row[key]);
    if (value !== null) data[column.name] = value;
  }
  return data;
}

const recordOf = (dialect: DialectName, readers: ColumnReader[], row: StoredRow): RowRecord => ({
  row_id: row.row_id,
  data: dataOf(dialect, readers, row),
  ...ownerFields(row.user_id, (row.created_by as string | null | undefined) ?? null),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** A stored owner as the record shows it: an organisation's owner key is its organization_id, with user_id null. */
export function ownerFields(owner: string | null, createdBy: string | null): Pick<RowRecord, 'user_id' | 'organization_id' | 'created_by'> {
  const org = orgOfOwnerKey(owner);
  return { user_id: org === null ? owner : null, organization_id: org, created_by: createdBy };
}

/** The row's data keyed by column name, in column order; null values are absent. */
export const storedData = (dialect: DialectName, columns: CustomColumn[], row: StoredRow) => dataOf(dialect, readersOf(columns), row);

/** The row's counted size (rowCost) as the columns now stand. */
export const storedSize = (dialect: DialectName, columns: CustomColumn[], row: StoredRow) => rowCost(columns, storedData(dialect, columns, row));

export const rowRecord = (dialect: DialectName, columns: CustomColumn[], row: StoredRow): RowRecord => recordOf(dialect, readersOf(columns), row);

/** The records of many rows of one table (a query page). */
export function rowRecords(dialect: DialectName, columns: CustomColumn[], rows: StoredRow[]): RowRecord[] {
  const readers = readersOf(columns);
  return rows.map((row) => recordOf(dialect, readers, row));
}
