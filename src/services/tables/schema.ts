import { iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { ApiError, badRequest, conflict, notFound } from '../../errors.js';
import { isUniqueViolation } from '../../store/dialect.js';
import type { Db } from '../../store/db.js';
import * as rowsRepo from '../../store/repos/custom-rows.js';
import * as repo from '../../store/repos/custom-tables.js';
import type { CustomColumn, CustomTable } from '../../store/repos/custom-tables.js';
import { cachesTableMetadata, encodeValue, type ColumnType } from '../../store/tables-dialect.js';
import { inTransaction } from '../../store/transaction.js';
import { storedSize, tableRecord, type TableRecord } from './records.js';
import { checkValue, INDEXED_COLUMN_OVERHEAD_BYTES, INDEXED_VALUE_OVERHEAD_BYTES, tableCost } from './values.js';

// Tables and columns (docs/tables.md). Every DDL statement runs in the same transaction as its
// metadata change: on PostgreSQL DDL is transactional, on SQLite the transaction holds the write lock
// (BEGIN IMMEDIATE), so a failed step (a limit, a duplicate) leaves neither behind.

export const MAX_TABLES_PER_APP = 200;
export const MAX_COLUMNS_PER_TABLE = 100;
/** Row fields: a column of the same name would make queries and records ambiguous. */
const RESERVED = new Set(['row_id', 'user_id', 'created_at', 'updated_at']);

export type TablesDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'secrets' | 'tableMetadata'> & { store: Pick<Deps['store'], 'dialect'> };

export interface ColumnInput {
  name: string;
  type: ColumnType;
  required?: boolean;
  default_value?: unknown;
  position?: number;
}

export const storageExceeded = () =>
  new ApiError(413, 'table_storage_exceeded', "the write would pass the application's table storage limit; nothing was written");

function checkName(name: string): void {
  if (RESERVED.has(name)) throw badRequest(`${name} is a row field and cannot name a column`);
}

/** The default as stored (JSON text), checked against the type; null for none. */
function defaultJson(input: { name: string; type: ColumnType; default_value?: unknown }): string | null {
  if (input.default_value === undefined || input.default_value === null) return null;
  return JSON.stringify(checkValue(input.type, `${input.name}.default_value`, input.default_value));
}

/** The app's table, locked for a schema change; 404 for a missing one or another app's. */
export async function requireTable(deps: TablesDeps, db: Db, appId: string, tableId: string, lock?: 'update' | 'share'): Promise<CustomTable> {
  const table = await repo.findCustomTable(db, deps.store.dialect, appId, tableId, lock);
  if (!table) throw notFound('table not found');
  return table;
}

/** Moves the app's usage by `delta` in one conditional write: 413 when a growth would pass the limit. */
async function grow(deps: TablesDeps, trx: Db, appId: string, delta: number): Promise<void> {
  if (!(await repo.addUsedBytes(trx, appId, delta, deps.config.tablesStorageLimitBytes))) throw storageExceeded();
}

/** Recounts every row's size after a change to the columns, and moves the app's usage by the difference (413 past the limit). */
async function recountSizes(deps: TablesDeps, trx: Db, appId: string, table: CustomTable, columns: CustomColumn[]): Promise<void> {
  let delta = 0;
  let after: string | null = null;
  for (;;) {
    const page = await rowsRepo.pageAllRows(trx, table.id, after, 1000);
    for (const row of page) {
      const size = storedSize(deps.store.dialect, columns, row);
      if (size !== Number(row.size_bytes)) {
        delta += size - Number(row.size_bytes);
        await rowsRepo.setRowSize(trx, table.id, row.row_id, size);
      }
    }
    if (page.length < 1000) break;
    after = page[page.length - 1]!.row_id;
  }
  await grow(deps, trx, appId, delta);
}

async function withDuplicateName<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`a ${what} with that name already exists`);
    throw error;
  }
}

/** Creates a table (and its real database table) with its first columns. */
export async function createTable(deps: TablesDeps, appId: string, input: { name: string; columns?: ColumnInput[] }): Promise<TableRecord> {
  const inputs = input.columns ?? [];
  const names = new Set<string>();
  for (const c of inputs) {
    checkName(c.name);
    if (names.has(c.name)) throw conflict(`column ${c.name} is named twice`);
    names.add(c.name);
  }
  if (inputs.length > MAX_COLUMNS_PER_TABLE) throw badRequest(`a table has at most ${MAX_COLUMNS_PER_TABLE} columns`);
  const now = iso(deps.clock.now());
  const tableId = newUuid();
  const columns = inputs.map((c, i) => ({
    id: newUuid(),
    table_id: tableId,
    name: c.name,
    type: c.type,
    required: c.required ? 1 : 0,
    default_value: defaultJson(c),
    position: c.position ?? i,
    created_at: now,
  }));
  await withDuplicateName('table', () =>
    inTransaction(deps.db, async (trx) => {
      await repo.ensureUsageRow(trx, appId);
      await repo.insertCustomTable(trx, { id: tableId, app_id: appId, name: input.name, column_count: columns.length, created_at: now, updated_at: now });
      for (const c of columns) await repo.insertCustomColumn(trx, c);
      await rowsRepo.createDataTable(trx, deps.store.dialect, tableId, columns);
      await grow(deps, trx, appId, tableCost(columns));
      // The count last: its row lock (the app's usage row) is then held only until the commit.
      if (!(await repo.addTableCount(trx, appId, 1, MAX_TABLES_PER_APP))) throw conflict(`an application has at most ${MAX_TABLES_PER_APP} tables`);
    }),
  );
  return getTable(deps, appId, tableId);
}

/** The table's record; the read also refreshes this node's copy of its metadata (after a change made here, too). */
export async function getTable(deps: TablesDeps, appId: string, tableId: string): Promise<TableRecord> {
  const table = await requireTable(deps, deps.db, appId, tableId);
  if (cachesTableMetadata(deps.store.dialect)) deps.tableMetadata.set(table);
  return tableRecord(table);
}

export async function listTables(deps: TablesDeps, appId: string): Promise<TableRecord[]> {
  return (await repo.listCustomTables(deps.db, appId)).map(tableRecord);
}

/** Drops the table with its rows and gives their bytes back to the app's usage. */
export async function deleteTable(deps: TablesDeps, appId: string, tableId: string): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    const table = await requireTable(deps, trx, appId, tableId, 'update');
    const bytes = (await rowsRepo.sumRowBytes(trx, table.id)) + tableCost(table.columns);
    await rowsRepo.dropDataTable(trx, table.id);
    await repo.deleteCustomTable(trx, appId, table.id);
    await repo.addTableCount(trx, appId, -1, MAX_TABLES_PER_APP);
    await grow(deps, trx, appId, -bytes);
  });
  deps.tableMetadata.forget(appId, tableId);
}

/** Adds a column; a default is written into existing rows (their bytes count, as does each row's new index entry), a required one needs it when rows exist (409). */
export async function addColumn(deps: TablesDeps, appId: string, tableId: string, input: ColumnInput): Promise<TableRecord> {
  checkName(input.name);
  const defaultValue = defaultJson(input);
  const now = iso(deps.clock.now());
  await withDuplicateName('column', () =>
    inTransaction(deps.db, async (trx) => {
      const table = await requireTable(deps, trx, appId, tableId, 'update');
      if (table.columns.some((c) => c.name === input.name)) throw conflict(`column ${input.name} already exists`);
      const rows = await rowsRepo.countRows(trx, table.id);
      if (input.required && defaultValue === null && rows > 0) throw conflict(`a required column without default_value cannot be added to a table with rows`);
      if (!(await repo.addColumnCount(trx, appId, table.id, 1, MAX_COLUMNS_PER_TABLE, now))) throw conflict(`a table has at most ${MAX_COLUMNS_PER_TABLE} columns`);
      const position = input.position ?? Math.max(-1, ...table.columns.map((c) => c.position)) + 1;
      const row = { id: newUuid(), table_id: table.id, name: input.name, type: input.type, required: input.required ? 1 : 0, default_value: defaultValue, position, created_at: now };
      await repo.insertCustomColumn(trx, row);
      await rowsRepo.addDataColumn(trx, deps.store.dialect, table.id, row);
      const indexed = rowsRepo.isIndexedType(input.type);
      if (defaultValue !== null && rows > 0) {
        await rowsRepo.fillNulls(trx, table.id, row.id, encodeValue(deps.store.dialect, input.type, JSON.parse(defaultValue)));
        await recountSizes(deps, trx, appId, table, [...table.columns, repo.toColumn(row)]);
      } else if (rows > 0 && indexed) {
        // Every row gains an entry in the new column's index, null as it is (rowCost).
        await rowsRepo.addToRowSizes(trx, table.id, INDEXED_VALUE_OVERHEAD_BYTES);
        await grow(deps, trx, appId, rows * INDEXED_VALUE_OVERHEAD_BYTES);
      }
      if (indexed) await grow(deps, trx, appId, INDEXED_COLUMN_OVERHEAD_BYTES);
    }),
  );
  return getTable(deps, appId, tableId);
}

export interface ColumnPatch {
  name?: string;
  type?: ColumnType;
  required?: boolean;
  default_value?: unknown;
  position?: number;
}

/** Changes a column: a rename is metadata only (row sizes recounted); the type only while the table is empty. */
export async function updateColumn(deps: TablesDeps, appId: string, tableId: string, columnId: string, patch: ColumnPatch): Promise<TableRecord> {
  const now = iso(deps.clock.now());
  await withDuplicateName('column', () =>
    inTransaction(deps.db, async (trx) => {
      const table = await requireTable(deps, trx, appId, tableId, 'update');
      const column = table.columns.find((c) => c.id === columnId);
      if (!column) throw notFound('column not found');
      const next: CustomColumn = { ...column };
      const changes: Parameters<typeof repo.updateCustomColumn>[3] = {};
      const rows = await rowsRepo.countRows(trx, table.id);
      if (patch.type !== undefined && patch.type !== column.type) {
        if (rows > 0) throw badRequest('the type of a column can only change while the table has no rows');
        next.type = changes.type = patch.type;
        await rowsRepo.dropDataColumn(trx, table.id, column.id);
        await rowsRepo.addDataColumn(trx, deps.store.dialect, table.id, next);
        // To or from json: the column gains or loses its index.
        await grow(deps, trx, appId, tableCost([next]) - tableCost([column]));
      }
      if (patch.name !== undefined && patch.name !== column.name) {
        checkName(patch.name);
        if (table.columns.some((c) => c.name === patch.name)) throw conflict(`column ${patch.name} already exists`);
        next.name = changes.name = patch.name;
      }
      if (patch.default_value !== undefined || changes.type !== undefined) {
        const value = patch.default_value !== undefined ? patch.default_value : column.defaultValue;
        const json = defaultJson({ name: next.name, type: next.type, default_value: value });
        next.defaultValue = json === null ? null : JSON.parse(json);
        changes.default_value = json;
      }
      if (patch.required !== undefined) {
        next.required = patch.required;
        changes.required = patch.required ? 1 : 0;
        if (patch.required && (await rowsRepo.countRows(trx, table.id, { nullColumn: column.id })) > 0) {
          if (next.defaultValue === null) throw conflict(`rows without ${next.name} exist: give a default_value to make it required`);
          await rowsRepo.fillNulls(trx, table.id, column.id, encodeValue(deps.store.dialect, next.type, next.defaultValue));
        }
      }
      if (patch.position !== undefined) next.position = changes.position = patch.position;
      await repo.updateCustomColumn(trx, table.id, column.id, changes);
      await repo.markSchemaChanged(trx, appId, table.id, now);
      if (rows > 0 && (changes.name !== undefined || changes.required !== undefined)) {
        await recountSizes(deps, trx, appId, table, table.columns.map((c) => (c.id === column.id ? next : c)));
      }
    }),
  );
  return getTable(deps, appId, tableId);
}

/** Deletes a column with its values; the rows' bytes shrink accordingly. */
export async function deleteColumn(deps: TablesDeps, appId: string, tableId: string, columnId: string): Promise<void> {
  const now = iso(deps.clock.now());
  await inTransaction(deps.db, async (trx) => {
    const table = await requireTable(deps, trx, appId, tableId, 'update');
    const column = table.columns.find((c) => c.id === columnId);
    if (!column) throw notFound('column not found');
    const remaining = table.columns.filter((c) => c.id !== columnId);
    // Sizes first, while the column's values can still be read.
    await recountSizes(deps, trx, appId, table, remaining);
    await rowsRepo.dropDataColumn(trx, table.id, column.id);
    await repo.deleteCustomColumn(trx, table.id, column.id);
    if (rowsRepo.isIndexedType(column.type)) await grow(deps, trx, appId, -INDEXED_COLUMN_OVERHEAD_BYTES);
    await repo.addColumnCount(trx, appId, table.id, -1, MAX_COLUMNS_PER_TABLE, now);
  });
  deps.tableMetadata.forget(appId, tableId);
}
