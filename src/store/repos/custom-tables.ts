import { sql, type Insertable } from 'kysely';
import { CUSTOM_TABLE_COLUMNS, qualified } from '../columns.js';
import { compiledQuery } from '../compiled.js';
import type { Db } from '../db.js';
import type { DialectName } from '../dialect.js';
import { lockClause, type ColumnType } from '../tables-dialect.js';
import type { CustomColumnRow, CustomTableRow, CustomTablesTable } from '../types.js';
import { prefixed } from './prefixed-columns.js';

// Metadata of custom tables and columns, and the per-app usage row. Every function is scoped by app_id.

export interface CustomColumn {
  id: string;
  name: string;
  type: ColumnType;
  required: boolean;
  defaultValue: unknown; // null: no default
  position: number;
}

export interface CustomTable {
  id: string;
  appId: string;
  name: string;
  columnCount: number;
  /** Bumped with every change to the columns: what a cached copy is checked against. */
  schemaVersion: number;
  columns: CustomColumn[];
  createdAt: string;
  updatedAt: string;
}

export const toColumn = (row: CustomColumnRow): CustomColumn => ({
  id: row.id,
  name: row.name,
  type: row.type,
  required: row.required === 1,
  defaultValue: row.default_value === null ? null : JSON.parse(row.default_value),
  position: row.position,
});

function toTable(row: CustomTableRow, columns: CustomColumnRow[]): CustomTable {
  return {
    id: row.id,
    appId: row.app_id,
    name: row.name,
    columnCount: row.column_count,
    schemaVersion: Number(row.schema_version),
    columns: columns.filter((c) => c.table_id === row.id).map(toColumn),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function columnsOf(db: Db, tableIds: string[]): Promise<CustomColumnRow[]> {
  if (tableIds.length === 0) return [];
  return db.selectFrom('custom_columns').selectAll().where('table_id', 'in', tableIds).orderBy('position').orderBy('created_at').orderBy('id').execute();
}

type TableWithColumnRow = CustomTableRow & { [K in keyof CustomColumnRow as `column_${K}`]: CustomColumnRow[K] | null };

/** The table and its columns in one statement (one snapshot, one round trip): a row per column, or one with null column fields. */
const tableWithColumnsQuery = compiledQuery(['tableId', 'appId'], (db, v) =>
  db
    .selectFrom('custom_tables as t')
    .leftJoin('custom_columns as c', 'c.table_id', 't.id')
    .select(qualified('t', CUSTOM_TABLE_COLUMNS))
    .select(prefixed('c', 'column_', ['id', 'table_id', 'name', 'type', 'required', 'default_value', 'position', 'created_at']))
    .where('t.id', '=', v.tableId)
    .where('t.app_id', '=', v.appId)
    .orderBy('c.position')
    .orderBy('c.created_at')
    .orderBy('c.id'),
);

function columnOf(row: TableWithColumnRow): CustomColumnRow | undefined {
  if (row.column_id === null) return undefined;
  return {
    id: row.column_id,
    table_id: row.column_table_id!,
    name: row.column_name!,
    type: row.column_type!,
    required: row.column_required!,
    default_value: row.column_default_value,
    position: row.column_position!,
    created_at: row.column_created_at!,
  };
}

/**
 * The app's table with its columns, or undefined (another app's id included). `lock` takes a row lock
 * on the metadata on PostgreSQL: `share` for row writes, `update` for schema changes, so they serialise.
 * A locked read takes the lock first and reads the columns in a second statement: a joined statement
 * that waited for the lock would still see the columns of its snapshot from before the wait.
 */
export async function findCustomTable(db: Db, dialect: DialectName, appId: string, tableId: string, lock?: 'update' | 'share'): Promise<CustomTable | undefined> {
  if (lock === undefined) {
    const rows = (await tableWithColumnsQuery(db, { tableId, appId })) as TableWithColumnRow[];
    const row = rows[0];
    return row && toTable(row, rows.map(columnOf).filter((c) => c !== undefined));
  }
  const { rows } = await sql<CustomTableRow>`select * from custom_tables where id = ${tableId} and app_id = ${appId}${lockClause(dialect, lock)}`.execute(db);
  const row = rows[0];
  return row && toTable(row, await columnsOf(db, [row.id]));
}

export async function listCustomTables(db: Db, appId: string): Promise<CustomTable[]> {
  const rows = await db.selectFrom('custom_tables').selectAll().where('app_id', '=', appId).orderBy('created_at').orderBy('id').execute();
  const columns = await columnsOf(db, rows.map((r) => r.id));
  return rows.map((row) => toTable(row, columns));
}

/** The ids of the app's tables (at most MAX_TABLES_PER_APP), oldest first: a user's deletion and export walk them. */
export async function listCustomTableIds(db: Db, appId: string): Promise<string[]> {
  const rows = await db.selectFrom('custom_tables').select('id').where('app_id', '=', appId).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => r.id);
}

export async function insertCustomTable(db: Db, row: Insertable<CustomTablesTable>): Promise<void> {
  await db.insertInto('custom_tables').values(row).execute();
}

export async function deleteCustomTable(db: Db, appId: string, tableId: string): Promise<void> {
  await db.deleteFrom('custom_columns').where('table_id', '=', tableId).execute();
  await db.deleteFrom('custom_tables').where('id', '=', tableId).where('app_id', '=', appId).execute();
}

/**
 * Adds `delta` to the column count when the result stays within `max`: one conditional write. False when it
 * would not. A column added or dropped is a schema change: the same write bumps the schema version (see
 * markSchemaChanged).
 */
export async function addColumnCount(db: Db, appId: string, tableId: string, delta: number, max: number, now: string): Promise<boolean> {
  const result = await db
    .updateTable('custom_tables')
    .set((eb) => ({ column_count: eb('column_count', '+', delta), updated_at: now, schema_version: eb('schema_version', '+', 1) }))
    .where('id', '=', tableId)
    .where('app_id', '=', appId)
    .where((eb) => eb(eb('column_count', '+', delta), '<=', max))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Records a change to the table's columns: `updated_at`, and the schema version every node's cached copy
 * is checked against. Called in the transaction of the change, so the new version and the new columns
 * are seen together.
 */
export async function markSchemaChanged(db: Db, appId: string, tableId: string, now: string): Promise<void> {
  await db
    .updateTable('custom_tables')
    .set((eb) => ({ updated_at: now, schema_version: eb('schema_version', '+', 1) }))
    .where('id', '=', tableId)
    .where('app_id', '=', appId)
    .execute();
}

export async function insertCustomColumn(db: Db, row: CustomColumnRow): Promise<void> {
  await db.insertInto('custom_columns').values(row).execute();
}

export async function updateCustomColumn(db: Db, tableId: string, columnId: string, changes: Partial<Pick<CustomColumnRow, 'name' | 'type' | 'required' | 'default_value' | 'position'>>): Promise<void> {
  await db.updateTable('custom_columns').set(changes).where('id', '=', columnId).where('table_id', '=', tableId).execute();
}

export async function deleteCustomColumn(db: Db, tableId: string, columnId: string): Promise<void> {
  await db.deleteFrom('custom_columns').where('id', '=', columnId).where('table_id', '=', tableId).execute();
}

/** Makes sure the app has its usage row (idempotent). */
export async function ensureUsageRow(db: Db, appId: string): Promise<void> {
  await db.insertInto('custom_table_usage').values({ app_id: appId, used_bytes: 0, table_count: 0 }).onConflict((oc) => oc.column('app_id').doNothing()).execute();
}

/**
 * Adds `delta` bytes to the app's usage in one conditional write: a growth only when the total stays
 * within the app's limit (its own, else `defaultLimit`). Two writers racing for the last bytes cannot
 * both pass. Returns false when it would not fit (nothing changed).
 */
export async function addUsedBytes(db: Db, appId: string, delta: number, defaultLimit: number): Promise<boolean> {
  if (delta === 0) return true;
  const limit = sql<number>`coalesce((select tables_limit_bytes from applications where id = ${appId}), ${defaultLimit})`;
  const result = await db
    .updateTable('custom_table_usage')
    .set((eb) => ({ used_bytes: eb('used_bytes', '+', delta) }))
    .where('app_id', '=', appId)
    .$if(delta > 0, (qb) => qb.where(sql<boolean>`used_bytes + ${delta} <= ${limit}`))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Adds `delta` to the app's table count when it stays within `max`; false when it would not. */
export async function addTableCount(db: Db, appId: string, delta: number, max: number): Promise<boolean> {
  const result = await db
    .updateTable('custom_table_usage')
    .set((eb) => ({ table_count: eb('table_count', '+', delta) }))
    .where('app_id', '=', appId)
    .where((eb) => eb(eb('table_count', '+', delta), '<=', max))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findUsage(db: Db, appId: string, defaultLimit: number): Promise<{ usedBytes: number; limitBytes: number }> {
  const usage = await db.selectFrom('custom_table_usage').select('used_bytes').where('app_id', '=', appId).executeTakeFirst();
  const app = await db.selectFrom('applications').select('tables_limit_bytes').where('id', '=', appId).executeTakeFirst();
  return { usedBytes: Number(usage?.used_bytes ?? 0), limitBytes: Number(app?.tables_limit_bytes ?? defaultLimit) };
}

/** The app's own table storage limit (null: the server default). */
export async function findTablesLimit(db: Db, appId: string): Promise<number | null> {
  const app = await db.selectFrom('applications').select('tables_limit_bytes').where('id', '=', appId).executeTakeFirst();
  return app?.tables_limit_bytes == null ? null : Number(app.tables_limit_bytes);
}
