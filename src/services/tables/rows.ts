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
import { fieldValue, ownerFields, rowRecord, storedData, type RowRecord } from './records.js';
import type { OrgGate, RowOwner } from '../../store/row-owner.js';
import { findOrganization, orgOwnerKey } from '../../store/repos/organizations.js';
import { requireTable, storageExceeded, type TablesDeps } from './schema.js';
import { checkRowSize, checkValue, dataBytes, rowCost } from './values.js';
import { answering } from '../db-errors.js';

// Rows of custom tables. Every write validates against the current columns and moves the app's usage in
// the same transaction by one conditional UPDATE, so concurrent writers can never pass the limit.

/**
 * Who is asking: the secret key sees every row; a session user only rows whose user_id is theirs or, with an
 * active organisation (`orgId`, from the session's token), only that organisation's rows, behind the gate
 * that the session still has it active and the user is a member (docs/organizations.md).
 */
export type Caller = { kind: 'secret' } | { kind: 'user'; userId: string; sessionId?: string; orgId?: string };

/** The rows a caller may see in `appId`: undefined (all, the secret key), a user's own, or an organisation's behind its gate. */
export function scopeOf(appId: string, caller: Caller): RowOwner | undefined {
  if (caller.kind === 'secret') return undefined;
  if (caller.orgId === undefined || caller.sessionId === undefined) return caller.userId;
  return { key: orgOwnerKey(caller.orgId), gate: { appId, orgId: caller.orgId, userId: caller.userId, sessionId: caller.sessionId } };
}

/** A table that vanished mid-request (deleted meanwhile) reads as not found, not as a fault. */
const orMissing = <T>(work: () => Promise<T>): Promise<T> => answering(isMissingTable, () => notFound('table not found'), work);

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

/**
 * Creates a row. A session user owns it, or with `organization_id` (which must be the session's active
 * organisation) the organisation does, written only while the session is an active member (in the insert
 * itself); the secret key may name a user of the app (else 404), a live organisation (else 404) or none.
 */
export async function createRow(
  deps: TablesDeps,
  appId: string,
  tableId: string,
  caller: Caller,
  input: { data: Record<string, unknown>; user_id?: string | null; organization_id?: string | null },
): Promise<RowRecord> {
  let userId: string | null = input.user_id ?? null;
  const orgId = input.organization_id ?? null;
  if (userId !== null && orgId !== null) throw badRequest('a row belongs to a user or to an organization, not both');
  let gate: OrgGate | undefined;
  if (caller.kind === 'user') {
    if (input.user_id != null && input.user_id !== caller.userId) throw forbidden('a session may only write rows of its own user');
    const scope = scopeOf(appId, caller);
    if (orgId !== null && (typeof scope !== 'object' || scope.gate.orgId !== orgId)) throw notFound('organization not found');
    gate = orgId !== null && typeof scope === 'object' ? scope.gate : undefined;
    userId = orgId === null ? caller.userId : null;
  } else if (orgId !== null && !(await findOrganization(deps.db, appId, orgId))) {
    throw notFound('organization not found');
  }
  const owner = orgId === null ? userId : orgOwnerKey(orgId);
  const createdBy = caller.kind === 'user' ? caller.userId : null;
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
      const row = { rowId, userId: owner, createdBy, createdAt: now, updatedAt: now, sizeBytes: size, values: encodedValues(deps, table.columns, data) };
      if (!(await rowsRepo.insertRow(trx, table.id, row, gate))) throw notFound('organization not found');
      await grow(deps, trx, appId, size);
      return { row_id: rowId, data, ...ownerFields(owner, createdBy), created_at: now, updated_at: now };
    }),
  );
}

async function requireRow(deps: TablesDeps, trx: Db, table: CustomTable, rowId: string, scope: RowOwner | undefined, lock = false): Promise<StoredRow> {
  const row = await rowsRepo.findRow(trx, deps.store.dialect, table.id, rowId, scope, lock);
  // Another user's row is 404 as well: no existence oracle.
  if (!row) throw notFound('row not found');
  return row;
}

export async function getRow(deps: TablesDeps, appId: string, tableId: string, rowId: string, caller: Caller): Promise<RowRecord> {
  return orMissing(async () => {
    const table = await requireTable(deps, deps.db, appId, tableId);
    return rowRecord(deps.store.dialect, table.columns, await requireRow(deps, deps.db, table, rowId, scopeOf(appId, caller)));
  });
}

/** Merges `data` into the row: given fields replace, `null` clears a non-required field. */
export async function updateRow(deps: TablesDeps, appId: string, tableId: string, rowId: string, caller: Caller, input: { data: Record<string, unknown> }): Promise<RowRecord> {
  const now = iso(deps.clock.now());
  return orMissing(() =>
    inTransaction(deps.db, async (trx) => {
      const table = await requireTable(deps, trx, appId, tableId, 'share');
      const scope = scopeOf(appId, caller);
      const row = await requireRow(deps, trx, table, rowId, scope, true);
      const data = mergeData(table.columns, storedData(deps.store.dialect, table.columns, row), input.data, false);
      checkRowSize(dataBytes(data));
      const size = rowCost(table.columns, data);
      // The write carries the scope too: a member removed since the read writes nothing.
      const written = await rowsRepo.updateRow(trx, table.id, { rowId, updatedAt: now, sizeBytes: size, values: encodedValues(deps, table.columns, data) }, scope);
      if (!written) throw notFound('row not found');
      await grow(deps, trx, appId, size - Number(row.size_bytes));
      return { row_id: rowId, data, ...ownerFields(row.user_id, row.created_by ?? null), created_at: row.created_at, updated_at: now };
    }),
  );
}

export async function deleteRow(deps: TablesDeps, appId: string, tableId: string, rowId: string, caller: Caller): Promise<void> {
  await orMissing(() =>
    inTransaction(deps.db, async (trx) => {
      const table = await requireTable(deps, trx, appId, tableId, 'share');
      const size = await rowsRepo.deleteRow(trx, table.id, rowId, scopeOf(appId, caller));
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
