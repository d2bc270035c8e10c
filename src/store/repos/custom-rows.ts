import { sql, type RawBuilder } from 'kysely';
import { rowLimit } from '../limit.js';
import type { Db } from '../db.js';
import type { DialectName } from '../dialect.js';
import { columnTypeSql, lockClause, sumsDeletedRows, type ColumnType } from '../tables-dialect.js';
import type { OrgGate, RowOwner } from '../row-owner.js';
import { isActiveMember } from './organizations.js';

// The real tables behind custom tables: `t_<table id hex>` with columns `c_<column id hex>`, indexes
// `i_...`. Every identifier is built here from a UUID the service generated and checked against a strict
// pattern before it reaches SQL; no user text ever does. Values are always bound parameters.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const IDENT = /^[tci]_[0-9a-f]{32}(_[a-z])?$/;

/** Checked identifiers by prefix and id (suffix-less ones only: the hot ones, named for every column of every row read). */
const idents = { t: new Map<string, string>(), c: new Map<string, string>(), i: new Map<string, string>() };
/** Ids are immutable, so a remembered identifier never goes stale; the bound only caps memory. */
const MAX_IDENTS = 10_000;

function ident(prefix: 't' | 'c' | 'i', id: string, suffix = ''): string {
  const known = suffix === '' ? idents[prefix].get(id) : undefined;
  if (known !== undefined) return known;
  if (!UUID.test(id)) throw new Error('custom-table identifiers come only from generated UUIDs');
  const name = `${prefix}_${id.replace(/-/g, '')}${suffix}`;
  if (!IDENT.test(name)) throw new Error(`refusing identifier ${name}`);
  if (suffix === '') {
    // Forgetting everything at once keeps it simple: refilling costs two regular expressions per id.
    if (idents[prefix].size >= MAX_IDENTS) idents[prefix].clear();
    idents[prefix].set(id, name);
  }
  return name;
}

export const tableIdent = (tableId: string) => ident('t', tableId);
export const columnIdent = (columnId: string) => ident('c', columnId);
const table = (tableId: string) => sql.table(tableIdent(tableId));
const column = (columnId: string) => sql.ref(columnIdent(columnId));

export interface PhysicalColumn {
  id: string;
  type: ColumnType;
}

/** The row's own fields beside its column values (the `c_...` keys). */
export interface StoredRow {
  row_id: string;
  user_id: string | null;
  created_by?: string | null;
  created_at: string;
  updated_at: string;
  size_bytes: number;
  [column: string]: unknown;
}

/** json columns are not indexed: they are neither sorted nor range-filtered, and their values can outgrow a b-tree entry. */
export const isIndexedType = (type: ColumnType): boolean => type !== 'json';

async function createColumnIndex(db: Db, tableId: string, c: PhysicalColumn): Promise<void> {
  if (!isIndexedType(c.type)) return;
  const columnId = c.id;
  await sql`create index ${sql.id(ident('i', columnId))} on ${table(tableId)} (${column(columnId)}, row_id)`.execute(db);
}

/** Creates the data table with its fixed indexes and one (value, row_id) index per column. */
export async function createDataTable(db: Db, dialect: DialectName, tableId: string, columns: PhysicalColumn[]): Promise<void> {
  const defs = columns.map((c) => sql`, ${column(c.id)} ${columnTypeSql(dialect, c.type)}`);
  await sql`create table ${table(tableId)} (
    row_id text primary key,
    user_id text,
    created_by text,
    created_at text not null,
    updated_at text not null,
    size_bytes integer not null${sql.join(defs, sql``)}
  )`.execute(db);
  // (user_id, row_id): a user's rows in one index walk, for the session's own rows, an export's pages and a deletion.
  await sql`create index ${sql.id(ident('i', tableId, '_u'))} on ${table(tableId)} (user_id, row_id)`.execute(db);
  await sql`create index ${sql.id(ident('i', tableId, '_c'))} on ${table(tableId)} (created_at, row_id)`.execute(db);
  await sql`create index ${sql.id(ident('i', tableId, '_m'))} on ${table(tableId)} (updated_at, row_id)`.execute(db);
  for (const c of columns) await createColumnIndex(db, tableId, c);
}

export async function dropDataTable(db: Db, tableId: string): Promise<void> {
  await sql`drop table ${table(tableId)}`.execute(db);
}

export async function addDataColumn(db: Db, dialect: DialectName, tableId: string, c: PhysicalColumn): Promise<void> {
  await sql`alter table ${table(tableId)} add column ${column(c.id)} ${columnTypeSql(dialect, c.type)}`.execute(db);
  await createColumnIndex(db, tableId, c);
}

/** Drops a column and its index (SQLite cannot drop an indexed column). */
export async function dropDataColumn(db: Db, tableId: string, columnId: string): Promise<void> {
  await sql`drop index if exists ${sql.id(ident('i', columnId))}`.execute(db);
  await sql`alter table ${table(tableId)} drop column ${column(columnId)}`.execute(db);
}

/** Sets a column's value on every row where it is null (a default for existing rows). Returns the rows changed. */
export async function fillNulls(db: Db, tableId: string, columnId: string, value: unknown): Promise<number> {
  const result = await sql`update ${table(tableId)} set ${column(columnId)} = ${value} where ${column(columnId)} is null`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export async function countRows(db: Db, tableId: string, where?: { nullColumn: string }): Promise<number> {
  const filter = where ? sql` where ${column(where.nullColumn)} is null` : sql``;
  const { rows } = await sql<{ n: number }>`select count(*) as n from ${table(tableId)}${filter}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

export async function sumRowBytes(db: Db, tableId: string): Promise<number> {
  const { rows } = await sql<{ n: number | null }>`select sum(size_bytes) as n from ${table(tableId)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** Every row, a page at a time in row_id order (schema changes recount sizes). */
export async function pageAllRows(db: Db, tableId: string, afterRowId: string | null, limit: number): Promise<StoredRow[]> {
  const after = afterRowId === null ? sql`` : sql` where row_id > ${afterRowId}`;
  const { rows } = await sql<StoredRow>`select * from ${table(tableId)}${after} order by row_id limit ${rowLimit(limit)}`.execute(db);
  return rows;
}

/** Adds `bytes` to every row's counted size (a new indexed column: each row gains an index entry). */
export async function addToRowSizes(db: Db, tableId: string, bytes: number): Promise<void> {
  await sql`update ${table(tableId)} set size_bytes = size_bytes + ${bytes}`.execute(db);
}

export async function setRowSize(db: Db, tableId: string, rowId: string, sizeBytes: number): Promise<void> {
  await sql`update ${table(tableId)} set size_bytes = ${sizeBytes} where row_id = ${rowId}`.execute(db);
}

export interface RowWrite {
  rowId: string;
  /** The owner: a user's id, an organisation's owner key, or null. */
  userId: string | null;
  /** The writer (a session's user), or null. */
  createdBy?: string | null;
  createdAt: string;
  updatedAt: string;
  sizeBytes: number;
  /** column id → encoded value */
  values: Map<string, unknown>;
}

/**
 * Inserts the row; with `gate` (an organisation's row written by a member), only while the gate holds, in the
 * same statement. False when the gate refused it.
 */
export async function insertRow(db: Db, tableId: string, row: RowWrite, gate?: OrgGate): Promise<boolean> {
  const names = [sql.ref('row_id'), sql.ref('user_id'), sql.ref('created_by'), sql.ref('created_at'), sql.ref('updated_at'), sql.ref('size_bytes')];
  const values: unknown[] = [row.rowId, row.userId, row.createdBy ?? null, row.createdAt, row.updatedAt, row.sizeBytes];
  for (const [columnId, value] of row.values) {
    names.push(column(columnId));
    values.push(value);
  }
  if (gate === undefined) {
    await sql`insert into ${table(tableId)} (${sql.join(names)}) values (${sql.join(values)})`.execute(db);
    return true;
  }
  const result = await sql`insert into ${table(tableId)} (${sql.join(names)}) select ${sql.join(values)} where ${isActiveMember(gate.appId, gate.orgId, gate.userId, gate.sessionId)}`.execute(db);
  return Number(result.numAffectedRows ?? 0) === 1;
}

/** Writes the row's new values, within the owner's scope (its gate too); false when nothing was written. */
export async function updateRow(db: Db, tableId: string, row: Omit<RowWrite, 'userId' | 'createdAt'>, owner?: RowOwner): Promise<boolean> {
  const sets: RawBuilder<unknown>[] = [sql`updated_at = ${row.updatedAt}`, sql`size_bytes = ${row.sizeBytes}`];
  for (const [columnId, value] of row.values) sets.push(sql`${column(columnId)} = ${value}`);
  const result = await sql`update ${table(tableId)} set ${sql.join(sets)} where row_id = ${row.rowId}${ownerFilter(owner)}`.execute(db);
  return Number(result.numAffectedRows ?? 0) === 1;
}

/** A user's own rows, or an organisation's behind the gate that its reader is an active member (docs/organizations.md). */
function ownerFilter(owner: RowOwner | undefined) {
  if (owner === undefined) return sql``;
  if (typeof owner === 'string') return sql` and user_id = ${owner}`;
  const g = owner.gate;
  return sql` and user_id = ${owner.key} and ${isActiveMember(g.appId, g.orgId, g.userId, g.sessionId)}`;
}

/** The row, or undefined; `userId` scopes it to one owner. `lock` locks it on PostgreSQL (read-modify-write). */
export async function findRow(db: Db, dialect: DialectName, tableId: string, rowId: string, userId: RowOwner | undefined, lock = false): Promise<StoredRow | undefined> {
  const { rows } = await sql<StoredRow>`select * from ${table(tableId)} where row_id = ${rowId}${ownerFilter(userId)}${lock ? lockClause(dialect, 'update') : sql``}`.execute(db);
  return rows[0];
}

/** Deletes the row; returns its size, or undefined when there was none (for this owner). */
export async function deleteRow(db: Db, tableId: string, rowId: string, userId: RowOwner | undefined): Promise<number | undefined> {
  const { rows } = await sql<{ size_bytes: number }>`delete from ${table(tableId)} where row_id = ${rowId}${ownerFilter(userId)} returning size_bytes`.execute(db);
  return rows[0] === undefined ? undefined : Number(rows[0].size_bytes);
}

/**
 * Deletes every row of the user (a user's deletion) by the (user_id, row_id) index; answers the bytes
 * they counted, which the caller gives back to the app's usage in the same transaction.
 */
export async function deleteUserRows(db: Db, dialect: DialectName, tableId: string, userId: string): Promise<number> {
  if (sumsDeletedRows(dialect)) {
    const { rows } = await sql<{ n: number | string | null }>`with gone as (delete from ${table(tableId)} where user_id = ${userId} returning size_bytes)
      select sum(size_bytes) as n from gone`.execute(db);
    return Number(rows[0]?.n ?? 0);
  }
  const { rows } = await sql<{ n: number | null }>`select sum(size_bytes) as n from ${table(tableId)} where user_id = ${userId}`.execute(db);
  await sql`delete from ${table(tableId)} where user_id = ${userId}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Deletes up to `limit` rows of one owner (an organisation's purge: its owner key) by the (user_id, row_id)
 * index; answers how many went and the bytes they counted, which the caller frees in the same transaction.
 */
export async function deleteOwnerRowBatch(db: Db, tableId: string, owner: string, limit: number): Promise<{ rows: number; bytes: number }> {
  const { rows } = await sql<{ size_bytes: number }>`delete from ${table(tableId)} where row_id in (
    select row_id from ${table(tableId)} where user_id = ${owner} order by user_id, row_id limit ${rowLimit(limit)}) returning size_bytes`.execute(db);
  return { rows: rows.length, bytes: rows.reduce((sum, row) => sum + Number(row.size_bytes), 0) };
}

/** A page of the user's rows in row_id order after `afterRowId` (an export): one walk of the (user_id, row_id) index. */
export async function pageUserRows(db: Db, tableId: string, userId: string, afterRowId: string | null, limit: number): Promise<StoredRow[]> {
  const after = afterRowId === null ? sql`` : sql` and row_id > ${afterRowId}`;
  const { rows } = await sql<StoredRow>`select * from ${table(tableId)} where user_id = ${userId}${after} order by user_id, row_id limit ${rowLimit(limit)}`.execute(db);
  return rows;
}
