import { iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import type { Db } from '../../store/db.js';
import * as rowsRepo from '../../store/repos/custom-rows.js';
import type { StoredRow } from '../../store/repos/custom-rows.js';
import * as repo from '../../store/repos/custom-tables.js';
import { lockUser } from '../../store/repos/users.js';
import type { CustomColumn, CustomTable } from '../../store/repos/custom-tables.js';
import { encodeValue, isMissingTable } from '../../store/tables-dialect.js';
import { inTransaction } from '../../store/transaction.js';
import { fieldValue, rowRecord, storedData, type RowRecord } from './records.js';
import { requireTable, storageExceeded, type TablesDeps } from './schema.js';
import { checkRowSize, checkValue, dataBytes, rowCost } from './values.js';

// Rows of custom tables. Every write validates against the current columns and moves the app's usage in
// the same transaction by one conditional UPDATE, so concurrent writers can never pass the limit.

/** Who is asking: the secret key sees every row; a session user only rows whose user_id is theirs. */
export type Caller = { kind: 'secret' } | { kind: 'user'; userId: string };

const scope = (caller: Caller) => (caller.kind === 'user' ? caller.userId : undefined);

/** A table that vanished mid-request (deleted meanwhile) reads as not found, not as a fault. */
async function orMissing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isMissingTable(error)) throw notFound('table not found');
    throw error;
  }
}

function checkFields(columns: CustomColumn[], data: Record<string, unknown>): void {
  for (const name of Object.keys(data)) {
    if (!columns.some((c) => c.name === name)) throw badRequest(`${name}: unknown field`);
  }
}

/** The full, ordered data of a row from `current` changed by `input` (null clears), with defaults when `fillDefaults`. */
function mergeData(columns: CustomColumn[], current: Record<string, unknown>, input: Record<string, unknown>, fillDefaults: boolean): Record<string, unknown> {
  checkFields(columns, input);
  const data: Record<string, unknown> = {};
  for (const c of columns) {
    let value = Object.hasOwn(input, c.name) ? input[c.name] : fieldValue(current, c.name);
    if (value === null && Object.hasOwn(input, c.name) && c.required && !fillDefaults) throw badRequest(`${c.name}: is required and cannot be cleared`);
    if ((value === undefined || value === null) && fillDefaults && c.defaultValue !== null) value = c.defaultValue;
    if (value === undefined || value === null) {
      if (c.required) throw badRequest(`${c.name}: is required`);
      continue;
    }
    data[c.name] = checkValue(c.type, c.name, value);
  }
  return data;
}

function encodedValues(deps: TablesDeps, columns: CustomColumn[], data: Record<string, unknown>): Map<string, unknown> {
  return new Map(columns.map((c) => [c.id, encodeValue(deps.store.dialect, c.type, fieldValue(data, c.name) ?? null)]));
}

async function grow(deps: TablesDeps, trx: Db, appId: string, delta: number): Promise<void> {
  if (!(await repo.addUsedBytes(trx, appId, delta, deps.config.tablesStorageLimitBytes))) throw storageExceeded();
}

/** Creates a row. A session user owns it; the secret key may name a user of the app (else 404) or none. */
export async function createRow(deps: TablesDeps, appId: string, tableId: string, caller: Caller, input: { data: Record<string, unknown>; user_id?: string | null }): Promise<RowRecord> {
  let userId: string | null = input.user_id ?? null;
  if (caller.kind === 'user') {
    if (input.user_id != null && input.user_id !== caller.userId) throw forbidden('a session may only write rows of its own user');
    userId = caller.userId;
  }
  const now = iso(deps.clock.now());
  return orMissing(() =>
    inTransaction(deps.db, async (trx) => {
      // The owner must exist when the row lands: a user deleted meanwhile leaves no row behind (lockUser).
      if (userId !== null && !(await lockUser(trx, deps.store.dialect, appId, userId, 'share'))) throw notFound('user not found');
      const table = await requireTable(deps, trx, appId, tableId, 'share');
      const data = mergeData(table.columns, {}, input.data, true);
      checkRowSize(dataBytes(data));
      const size = rowCost(table.columns, data);
      const rowId = newUuid();
      await rowsRepo.insertRow(trx, table.id, { rowId, userId, createdAt: now, updatedAt: now, sizeBytes: size, values: encodedValues(deps, table.columns, data) });
      await grow(deps, trx, appId, size);
      return { row_id: rowId, data, user_id: userId, created_at: now, updated_at: now };
    }),
  );
}

async function requireRow(deps: TablesDeps, trx: Db, table: CustomTable, rowId: string, caller: Caller, lock = false): Promise<StoredRow> {
  const row = await rowsRepo.findRow(trx, deps.store.dialect, table.id, rowId, scope(caller), lock);
  // Another user's row is 404 as well: no existence oracle.
  if (!row) throw notFound('row not found');
  return row;
}

export async function getRow(deps: TablesDeps, appId: string, tableId: string, rowId: string, caller: Caller): Promise<RowRecord> {
  return orMissing(async () => {
    const table = await requireTable(deps, deps.db, appId, tableId);
    return rowRecord(deps.store.dialect, table.columns, await requireRow(deps, deps.db, table, rowId, caller));
  });
}

/** Merges `data` into the row: given fields replace, `null` clears a non-required field. */
export async function updateRow(deps: TablesDeps, appId: string, tableId: string, rowId: string, caller: Caller, input: { data: Record<string, unknown> }): Promise<RowRecord> {
  const now = iso(deps.clock.now());
  return orMissing(() =>
    inTransaction(deps.db, async (trx) => {
      const table = await requireTable(deps, trx, appId, tableId, 'share');
      const row = await requireRow(deps, trx, table, rowId, caller, true);
      const data = mergeData(table.columns, storedData(deps.store.dialect, table.columns, row), input.data, false);
      checkRowSize(dataBytes(data));
      const size = rowCost(table.columns, data);
      await rowsRepo.updateRow(trx, table.id, { rowId, updatedAt: now, sizeBytes: size, values: encodedValues(deps, table.columns, data) });
      await grow(deps, trx, appId, size - Number(row.size_bytes));
      return { row_id: rowId, data, user_id: row.user_id, created_at: row.created_at, updated_at: now };
    }),
  );
}

export async function deleteRow(deps: TablesDeps, appId: string, tableId: string, rowId: string, caller: Caller): Promise<void> {
  await orMissing(() =>
    inTransaction(deps.db, async (trx) => {
      const table = await requireTable(deps, trx, appId, tableId, 'share');
      const size = await rowsRepo.deleteRow(trx, table.id, rowId, scope(caller));
      if (size === undefined) throw notFound('row not found');
      await grow(deps, trx, appId, -size);
    }),
  );
}

/** The app's table storage: used_percent 0-100. */
export async function tableStorage(deps: TablesDeps, appId: string): Promise<{ used_bytes: number; limit_bytes: number; used_percent: number }> {
  const { usedBytes, limitBytes } = await repo.findUsage(deps.db, appId, deps.config.tablesStorageLimitBytes);
  const percent = limitBytes === 0 ? (usedBytes > 0 ? 100 : 0) : Math.min(100, (usedBytes / limitBytes) * 100);
  return { used_bytes: usedBytes, limit_bytes: limitBytes, used_percent: Math.round(percent * 100) / 100 };
}
