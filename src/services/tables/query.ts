import { iso } from '../../clock.js';
import { badRequest, notFound } from '../../errors.js';
import type { StoredRow } from '../../store/repos/custom-rows.js';
import * as rowsRepo from '../../store/repos/custom-rows-query.js';
import type { Condition, FieldRef, RowOwner, SchemaCheck, Segment } from '../../store/repos/custom-rows-query.js';
import type { CustomTable } from '../../store/repos/custom-tables.js';
import { cachesTableMetadata, encodeValue, isMissingTable, sortSegments, type ColumnType } from '../../store/tables-dialect.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { STALE, withCachedTable } from './metadata-cache.js';
import { fieldValue, rowRecords, type RowRecord } from './records.js';
import { scopeOf, type Caller } from './rows.js';
import { requireTable, type TablesDeps } from './schema.js';
import { checkValue } from './values.js';

// POST .../rows/query: a small grammar (field, op, value) compiled to SQL with bound parameters, run in
// the database, paged by keyset on (sort value, row_id).

export type Op = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'contains' | 'is_null';
export interface FilterInput {
  field: string;
  op: Op;
  value?: unknown;
}
export interface QueryInput {
  filter?: FilterInput | FilterInput[];
  sort?: { field: string; dir: 'asc' | 'desc' };
  limit?: number;
  cursor?: string | null;
}

export const MAX_IN_VALUES = 100;

interface Field {
  ref: FieldRef;
  /** The field's key in a row record: the column's name in `data`, or the row field's own. */
  name: string;
  type: ColumnType;
  /** Cursor binding: the column id survives a rename. */
  key: string;
  nullable: boolean;
  /**
   * A required column holds no nulls: every write that could leave one is refused or filled (a missing
   * required field is 400, making a column required fills or refuses its nulls, a required column added
   * to rows needs a default). Its null segment is then known to be empty and is not read.
   */
  required: boolean;
}

function resolveField(table: CustomTable, caller: Caller, name: string): Field {
  if (name === 'created_at' || name === 'updated_at') return { ref: { kind: 'meta', name }, name, type: 'date', key: name, nullable: false, required: true };
  if (name === 'user_id' && caller.kind === 'secret') return { ref: { kind: 'meta', name }, name, type: 'text', key: name, nullable: true, required: false };
  const column = table.columns.find((c) => c.name === name);
  if (!column) throw badRequest(`${name}: unknown field`);
  // nullable stays true for a required column: a cursor made while it was not required stays valid.
  return { ref: { kind: 'column', columnId: column.id }, name, type: column.type, key: `c:${column.id}`, nullable: true, required: column.required };
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
// lower() folds ASCII letters alike on both databases; fold the pattern the same way.
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (ch) => ch.toLowerCase());

function compile(deps: TablesDeps, table: CustomTable, caller: Caller, filter: FilterInput): Condition {
  const field = resolveField(table, caller, filter.field);
  const name = `filter ${filter.field}`;
  const encode = (value: unknown) => encodeValue(deps.store.dialect, field.type, checkValue(field.type, name, value));
  if (filter.op === 'is_null') {
    if (typeof filter.value !== 'boolean') throw badRequest(`${name}: is_null takes true or false`);
    return { op: 'is_null', field: field.ref, isNull: filter.value };
  }
  if (field.type === 'json') throw badRequest(`${name}: json columns can only be filtered with is_null`);
  if (filter.op === 'contains') {
    if (field.type !== 'text' || field.ref.kind !== 'column') throw badRequest(`${name}: contains works on text columns only`);
    if (typeof filter.value !== 'string') throw badRequest(`${name}: contains takes a string`);
    return { op: 'contains', field: field.ref, pattern: `%${escapeLike(asciiLower(filter.value))}%` };
  }
  if (filter.op === 'in') {
    if (!Array.isArray(filter.value) || filter.value.length === 0 || filter.value.length > MAX_IN_VALUES) {
      throw badRequest(`${name}: in takes a list of 1 to ${MAX_IN_VALUES} values`);
    }
    return { op: 'in', field: field.ref, values: filter.value.map(encode) };
  }
  if (filter.value === undefined || filter.value === null) throw badRequest(`${name}: ${filter.op} needs a value (use is_null for null)`);
  return { op: filter.op, field: field.ref, value: encode(filter.value) };
}

/**
 * A page as the JSON the route sends: `{rows, next_cursor}`, rows as RowRecord. On PostgreSQL the database
 * writes each row's JSON (gatedJsonSegmentQuery), so the page is assembled as text, never parsed.
 */
export class PageJson {
  constructor(readonly text: string) {}
}

type Page = PageJson;

/**
 * A page of rows matching every condition, in sort order, with the cursor of the next page. On PostgreSQL
 * the table's metadata comes from this node's copy, checked by the page's own statement (withCachedTable).
 * With `presumedSecretKeyHash` (guards.presumed) that statement also confirms the key: undefined when it
 * finds nothing (the key not live, the tenant paused, or no such table), and the route runs the guard.
 * Only PostgreSQL's checked statement carries the key; elsewhere the answer is undefined at once.
 */
export async function queryRows(deps: TablesDeps, appId: string, tableId: string, caller: Caller, input: QueryInput): Promise<Page>;
export async function queryRows(deps: TablesDeps, appId: string, tableId: string, caller: Caller, input: QueryInput, presumedSecretKeyHash: string): Promise<Page | undefined>;
export async function queryRows(deps: TablesDeps, appId: string, tableId: string, caller: Caller, input: QueryInput, presumedSecretKeyHash?: string): Promise<Page | undefined> {
  if (cachesTableMetadata(deps.store.dialect)) {
    const secretKey = presumedSecretKeyHash === undefined ? undefined : { hash: presumedSecretKeyHash, now: iso(deps.clock.now()) };
    return withCachedTable(deps, appId, tableId, (table) => queryPage(deps, appId, table, caller, input, { appId, schemaVersion: table.schemaVersion, secretKey }));
  }
  if (presumedSecretKeyHash !== undefined) return undefined;
  const table = await requireTable(deps, deps.db, appId, tableId);
  try {
    return (await queryPage(deps, appId, table, caller, input)) as Page;
  } catch (error) {
    // Deleted between the two reads.
    if (isMissingTable(error)) throw notFound('table not found');
    throw error;
  }
}

/** Runs a bounded read; a query past both bounds is a 400 with a hint (store/repos/custom-rows-query.ts). */
async function boundedRead<T>(input: QueryInput, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof rowsRepo.QueryTooBroad)) throw error;
    const sort = input.sort?.field ?? 'created_at';
    throw badRequest(
      `query too broad: the filter keeps fewer than 1 row in ${rowsRepo.QUERY_BOUNDS.walkPerRow} in ${sort} order and more than ${rowsRepo.QUERY_BOUNDS.filteredSortRows} rows in all;` +
        ` sort by a field the filter narrows (eq, in or a range), or narrow the filter`,
    );
  }
}

/**
 * The page; with `check`, each statement checks the table's schema version: STALE when it has moved on;
 * undefined when a statement that confirms a presumed key (check.secretKey) finds nothing.
 */
async function queryPage(deps: TablesDeps, appId: string, table: CustomTable, caller: Caller, input: QueryInput, check?: SchemaCheck): Promise<Page | typeof STALE | undefined> {
  const filters = input.filter === undefined ? [] : Array.isArray(input.filter) ? input.filter : [input.filter];
  const conditions = filters.map((f) => compile(deps, table, caller, f));
  const sortField = resolveField(table, caller, input.sort?.field ?? 'created_at');
  if (sortField.type === 'json') throw badRequest(`sort ${input.sort?.field}: json columns cannot be sorted`);
  const dir = input.sort?.dir ?? 'asc';
  const limit = input.limit ?? 50;
  const binding = { app: appId, table: table.id, sort: sortField.key, dir };
  const position = input.cursor ? decodeCursor(deps.secrets.tablesCursor, input.cursor, binding) : undefined;

  const dialect = deps.store.dialect;
  const parts = sortSegments(dialect, sortField.nullable, !position, dir);
  const start = position ? parts.indexOf(position.nulls ? 'nulls' : 'values') : 0;
  if (start < 0) throw badRequest('cursor is invalid, or belongs to another query');
  /** The page's rows so far, each a RowRecord as JSON. */
  const found: string[] = [];
  const userId = scopeOf(appId, caller);
  const asJson = (rows: StoredRow[]) => {
    for (const record of rowRecords(dialect, table.columns, rows)) found.push(JSON.stringify(record));
  };
  const bounded = <T>(work: () => Promise<T>) => boundedRead(input, work);
  /** A segment's rows read with a bound on the rows examined (SQLite). */
  const boundedRows = (segment: Segment) => bounded(() => rowsRepo.queryRows(deps.db, dialect, table.id, conditions, userId, segment));
  /** Reads a segment into `found`; with `check`, answers STALE or undefined as queryPage does. */
  const read = async (segment: Segment): Promise<typeof STALE | undefined | true> => {
    if (!check) {
      asJson(await boundedRows(segment));
      return true;
    }
    const gated = await readGated({ deps, table, check, conditions, userId, input }, segment);
    if (gated) {
      for (const text of gated) found.push(text);
      return true;
    }
    const { schemaVersion, rows } = await rowsRepo.queryCheckedRows(deps.db, table.id, check, conditions, userId, segment);
    if (schemaVersion === undefined && check.secretKey) return undefined;
    if (schemaVersion !== check.schemaVersion) return STALE;
    asJson(rows);
    return true;
  };
  let reads = 0;
  for (let i = start; i < parts.length && found.length <= limit; i++) {
    if (parts[i] === 'nulls' && sortField.required) continue;
    const after = i === start && position ? { value: encodeValue(dialect, sortField.type, position.value), rowId: position.rowId } : undefined;
    const done = await read({ sort: sortField.ref, dir, part: parts[i]!, after, limit: limit + 1 - found.length });
    if (done !== true) return done;
    reads++;
  }
  // A cursor into the null segment of a column required since reads nothing: the checks of `check` (the
  // schema version, a presumed key) still run, on an empty read.
  if (check && reads === 0) {
    const done = await read({ sort: sortField.ref, dir, part: 'values', limit: 0 });
    if (done !== true) return done;
  }
  const page = found.slice(0, limit);
  let next: string | null = null;
  if (found.length > limit) {
    // The cursor's value is the sort field's value as the record shows it (decodeValue's form; a null is
    // left out of `data`).
    const last = JSON.parse(page[page.length - 1]!) as RowRecord;
    const value = fieldValue((sortField.ref.kind === 'column' ? last.data : last) as Record<string, unknown>, sortField.name) ?? null;
    next = encodeCursor(deps.secrets.tablesCursor, { ...binding, nulls: value === null, value, rowId: last.row_id });
  }
  return new PageJson(`{"rows":[${page.join(',')}],"next_cursor":${JSON.stringify(next)}}`);
}

/** What a checked read of a segment works with. */
interface CheckedRead {
  deps: TablesDeps;
  table: CustomTable;
  check: SchemaCheck;
  conditions: Condition[];
  userId: RowOwner | undefined;
  input: QueryInput;
}

/**
 * A segment's rows (as JSON) from the statements gated by `check`, or undefined when they found none: then
 * the checked statement tells why (a stale version, a key no longer live) or finds the rows written since.
 */
async function readGated({ deps, table, check, conditions, userId, input }: CheckedRead, segment: Segment): Promise<string[] | undefined> {
  // Rows from the gated statement are rows read under the checked version; none, and the checked
  // statement says why (or finds the rows written since).
  if (segment.limit > 0) {
    // A page whose plan depends on its values gets SQLite's bound too: first the walk of the sort's index
    // (filled: the page); else the planner's page only when the segment ended within the walk or the filter
    // matches few enough rows to sort. The planner alone may walk the whole index when a filter's rows all
    // sit at the far end of the sort (bench/README.md, "Data scale": 3 s at 250,000 rows).
    if (!rowsRepo.planIgnoresValues(conditions, userId, segment.sort)) {
      const walked = await rowsRepo.queryGatedWalkJson(deps.db, table.id, check, table.columns, conditions, userId, segment);
      if (walked.length >= segment.limit) return walked;
      try {
        // Rows from the walk are rows read under the checked version (and key); none, and the gate is asked
        // on its own first, so that a stale version or a key no longer live is answered as such below.
        const gateHeld = walked.length > 0 || (await rowsRepo.queryCheckedRows(deps.db, table.id, check, conditions, userId, { ...segment, limit: 0 })).schemaVersion === check.schemaVersion;
        if (gateHeld) await boundedRead(input, () => rowsRepo.walkNotFilledBecause(deps.db, deps.store.dialect, table.id, conditions, userId, segment));
      } catch (error) {
        // A table or column gone since the metadata was read: the checked read below says so.
        if (!isMissingTable(error) && (error as { code?: string }).code !== '42703') throw error;
      }
    }
    const texts = await rowsRepo.queryGatedJson(deps.db, table.id, check, table.columns, conditions, userId, segment);
    if (texts.length > 0) return texts;
  }
  return undefined;
}
