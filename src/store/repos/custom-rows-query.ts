import { CompiledQuery } from 'kysely';
import { rowLimitText } from '../limit.js';
import { executeCompiled, type Db } from '../db.js';
import type { DialectName } from '../dialect.js';
import { PREPARE_PER_CONNECTION } from '../pg-pool.js';
import type { ColumnType } from '../tables-dialect.js';
import { columnIdent, tableIdent, type StoredRow } from './custom-rows.js';

// The keyset SELECT of POST .../rows/query. A request runs one or two of them, so the SQL text is written
// here directly instead of through Kysely's builder, whose operation tree and compiler cost about as much
// as the statement itself. The text is rebuilt on every call from the columns the caller has (SQLite's
// statement cache then reuses the prepared statement by its text); those may come from a node's cache, so
// on PostgreSQL the statement checks the table's schema version itself (gatedJsonSegmentQuery, and
// checkedSegmentQuery when that finds nothing), and runs as a named statement of its connection
// (PREPARE_PER_CONNECTION in store/pg-pool.ts) when its plan cannot depend on its values
// (planIgnoresValues). Identifiers still come only from tableIdent/columnIdent (generated UUIDs); every
// value, column names included, is a bound parameter.

export type FieldRef = { kind: 'column'; columnId: string } | { kind: 'meta'; name: 'created_at' | 'updated_at' | 'user_id' };

export type Condition =
  | { op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'; field: FieldRef; value: unknown }
  | { op: 'in'; field: FieldRef; values: unknown[] }
  | { op: 'contains'; field: FieldRef; pattern: string }
  | { op: 'is_null'; field: FieldRef; isNull: boolean };

/**
 * One keyset segment of a sorted query: `values` (rows with a sort value) or `nulls` (rows without one,
 * ordered by row_id, reversed for `desc`), each a plain index range, so both databases order nulls alike
 * and every page is a seek rather than a scan from the start. `all` is both in one index scan, in the
 * database's own null order: only where that order is the contract's (see nullsSortHigh), and only from
 * the start (a position in one segment is continued segment by segment).
 */
export interface Segment {
  sort: FieldRef;
  dir: 'asc' | 'desc';
  part: 'values' | 'nulls' | 'all';
  after?: { value: unknown; rowId: string };
  limit: number;
}

const META = { created_at: 'created_at', updated_at: 'updated_at', user_id: 'user_id' } as const;
const fieldSql = (f: FieldRef) => (f.kind === 'column' ? columnIdent(f.columnId) : META[f.name]);
const OPS = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** Collects bound parameters and answers the dialect's placeholder for each. */
class Parameters {
  readonly values: unknown[] = [];
  constructor(private readonly dialect: DialectName) {}
  add(value: unknown): string {
    this.values.push(value);
    return this.dialect === 'postgres' ? `$${this.values.length}` : '?';
  }
}

function conditionSql(c: Condition, p: Parameters): string {
  const f = fieldSql(c.field);
  switch (c.op) {
    case 'in':
      return `${f} in (${c.values.map((v) => p.add(v)).join(', ')})`;
    case 'contains':
      return `lower(${f}) like ${p.add(c.pattern)} escape '\\'`;
    case 'is_null':
      return c.isNull ? `${f} is null` : `${f} is not null`;
    case 'ne':
      // "not equal" keeps rows where the field is null (absent is not equal to a value).
      return `(${f} <> ${p.add(c.value)} or ${f} is null)`;
    default:
      return `${f} ${OPS[c.op]} ${p.add(c.value)}`;
  }
}

/**
 * The segment's SELECT as SQL text, its parameters added to `p`, and its ORDER BY for a given table alias
 * prefix. `columns` is the select list (default `*`); `gate`, a condition put first in the WHERE.
 */
function pageSql(
  p: Parameters,
  tableId: string,
  conditions: Condition[],
  userId: string | undefined,
  segment: Segment,
  shape: { columns?: string; gate?: string; from?: string } = {},
): { text: string; orderBy: (prefix: string) => string } {
  const where = shape.gate === undefined ? [] : [shape.gate];
  for (const c of conditions) where.push(conditionSql(c, p));
  if (userId !== undefined) where.push(`user_id = ${p.add(userId)}`);
  const s = fieldSql(segment.sort);
  const dir = segment.dir === 'asc' ? 'asc' : 'desc';
  const cmp = segment.dir === 'asc' ? '>' : '<';
  let orderBy: (prefix: string) => string;
  if (segment.part === 'nulls') {
    where.push(`${s} is null`);
    if (segment.after) where.push(`row_id ${cmp} ${p.add(segment.after.rowId)}`);
    orderBy = (prefix) => `${prefix}row_id ${dir}`;
  } else {
    if (segment.part === 'values') where.push(segment.after ? `(${s}, row_id) ${cmp} (${p.add(segment.after.value)}, ${p.add(segment.after.rowId)})` : `${s} is not null`);
    orderBy = (prefix) => `${prefix}${s} ${dir}, ${prefix}row_id ${dir}`;
  }
  const filter = where.length === 0 ? '' : ` where ${where.join(' and ')}`;
  return { text: `select ${shape.columns ?? '*'} from ${shape.from ?? tableIdent(tableId)}${filter} order by ${orderBy('')} limit ${rowLimitText(segment.limit)}`, orderBy };
}

/** The segment's SELECT as SQL text and its parameters. Exported for the unit test of its shapes. */
export function segmentQuery(dialect: DialectName, tableId: string, conditions: Condition[], userId: string | undefined, segment: Segment): CompiledQuery<StoredRow> {
  const p = new Parameters(dialect);
  return CompiledQuery.raw(pageSql(p, tableId, conditions, userId, segment).text, p.values) as CompiledQuery<StoredRow>;
}

/**
 * Whose metadata a page was built from: the app (the tenant key) and the table's schema version it read;
 * with `secretKey`, the statement also confirms the secret key the route presumes (KeyGate).
 */
export interface SchemaCheck {
  appId: string;
  schemaVersion: number;
  secretKey?: { hash: string; now: string };
}

const sameField = (a: FieldRef, b: FieldRef) => (a.kind === 'column' ? b.kind === 'column' && a.columnId === b.columnId : b.kind === 'meta' && a.name === b.name);

/**
 * Whether the best plan for a page is the same whatever its values: the only index it can use is the
 * sort's (no condition binds a value on another field, no user scope). Only such a page runs as a named
 * statement on PostgreSQL. PostgreSQL may keep a named statement's generic plan, chosen without the
 * values: after a few pages of `score >= 500000` (half the rows) sorted by another column, it walks the
 * sort index and filters, and then does the same for `score >= 999990` (ten rows): 52 ms over 100,000
 * rows where planning with the value takes the score index in under 1 ms (docs/tables.md). Every other
 * page is planned with its values (an unnamed statement).
 */
export function planIgnoresValues(conditions: Condition[], userId: string | undefined, sort: FieldRef): boolean {
  return userId === undefined && conditions.every((c) => c.op === 'is_null' || sameField(c.field, sort));
}

/** A column as a page's JSON records show it: its value under its name in `data`. */
export interface JsonColumn {
  id: string;
  name: string;
  type: ColumnType;
}

/**
 * PostgreSQL text of a stored value as JSON, the value the API shows (decodeValue): numbers and booleans
 * as PostgreSQL writes them (the same values; a float may read `1e+15` where JavaScript writes
 * `1000000000000000`), dates as `YYYY-MM-DDTHH:mm:ss.sssZ` (stored with at most milliseconds), json as
 * jsonb's own text. Null for a null value.
 */
function jsonValueSql(type: ColumnType, column: string): string {
  switch (type) {
    case 'int':
    case 'json':
      return `${column}::text`;
    case 'date':
      return `'"' || to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'`;
    default:
      return `to_json(${column})::text`;
  }
}

/**
 * The select list that writes each row as its API record in JSON (records.ts, RowRecord: row_id, data,
 * user_id, created_at, updated_at, in that order), so node-postgres reads one text per row instead of
 * every column and the route sends the texts as they are. Keys of `data` are column names, user text,
 * so they are bound parameters (JSON-quoted here); a null value is left out (concat_ws skips nulls).
 * row_id and the timestamps are written by the service (a UUID, ISO 8601 UTC) and need no escaping.
 */
function rowJsonSql(p: Parameters, columns: JsonColumn[]): string {
  const fields = columns.map((c) => `${p.add(`${JSON.stringify(c.name)}:`)}::text || ${jsonValueSql(c.type, columnIdent(c.id))}`);
  // A function takes at most 100 arguments: more fields go in groups, each null when all of its are.
  const data =
    fields.length === 0
      ? `''`
      : fields.length < 100
        ? `concat_ws(',', ${fields.join(', ')})`
        : `concat_ws(',', ${chunks(fields, 50).map((group) => `nullif(concat_ws(',', ${group.join(', ')}), '')`).join(', ')})`;
  return (
    `'{"row_id":"' || row_id || '","data":{' || ${data} || '},"user_id":' || coalesce(to_json(user_id)::text, 'null')` +
    ` || ',"created_at":"' || created_at || '","updated_at":"' || updated_at || '"}' as j`
  );
}

const chunks = <T>(items: T[], size: number): T[][] => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** The version check's call, its parameters added to `p`. */
function checkCallSql(p: Parameters, tableId: string, check: SchemaCheck): string {
  return `gh_checked_table_version(${p.add(tableId)}, ${p.add(check.appId)}, ${p.add(check.secretKey?.hash ?? null)}, ${p.add(check.secretKey?.now ?? null)})`;
}

function versionText(check: SchemaCheck): string {
  // The version is part of the text (an integer this service wrote), so the text can run as a named
  // statement of its connection: one prepared before the table changed is never sent after it.
  if (!Number.isSafeInteger(check.schemaVersion)) throw new Error('a schema version is an integer');
  return String(check.schemaVersion);
}

/**
 * The segment's rows on PostgreSQL as JSON records (rowJsonSql), gated on the check: the version
 * gh_checked_table_version answers must be the one the columns were read at. The call has no column in
 * it, so PostgreSQL evaluates it once, before the scan (a one-time filter), and plans it like a
 * parameter: the statement costs the database what the bare page does, where the join of
 * checkedSegmentQuery costs it half again. Rows come back only when the check held in the page's own
 * snapshot; no rows says nothing (an empty page, a stale version, no such table or key), and the caller
 * asks checkedSegmentQuery, which tells them apart.
 */
export function gatedJsonSegmentQuery(tableId: string, check: SchemaCheck, columns: JsonColumn[], conditions: Condition[], userId: string | undefined, segment: Segment, walk?: number): CompiledQuery<{ j: string }> {
  const p = new Parameters('postgres');
  const version = versionText(check);
  const select = rowJsonSql(p, columns);
  const gate = `${checkCallSql(p, tableId, check)} = ${version}`;
  // With `walk`, the page reads the first `walk` rows of the sort's index only (sortedWalkQuery's shape).
  const page =
    walk === undefined
      ? pageSql(p, tableId, conditions, userId, segment, { columns: select, gate })
      : pageSql(p, tableId, conditions.filter((c) => !sameField(c.field, segment.sort)), userId, segment, { columns: select, gate, from: `(${walkSql(p, tableId, conditions, segment, walk)}) walked` });
  const text = (planIgnoresValues(conditions, userId, segment.sort) ? PREPARE_PER_CONNECTION : '') + page.text;
  return CompiledQuery.raw(text, p.values) as CompiledQuery<{ j: string }>;
}

/**
 * The segment's SELECT on PostgreSQL, checked against the table's schema version in the same statement (one
 * snapshot): gh_checked_table_version (migration 0013) answers the version of the app's table, or null
 * when there is no such table or the presumed secret key is not live, and the page is left-joined to it
 * only when that version is the expected one. It answers one row with the version and a null row_id when
 * the version differs or the page is empty, nothing when there is no such table (or key), else the page's
 * rows, each with the version. The check is a function so that PostgreSQL plans it once per connection,
 * not with every page planned with its values (`offset 0` keeps it a single call).
 */
export function checkedSegmentQuery(tableId: string, check: SchemaCheck, conditions: Condition[], userId: string | undefined, segment: Segment): CompiledQuery<CheckedRow> {
  const p = new Parameters('postgres');
  const page = pageSql(p, tableId, conditions, userId, segment);
  const version = versionText(check);
  const checked = checkCallSql(p, tableId, check);
  const text =
    (planIgnoresValues(conditions, userId, segment.sort) ? PREPARE_PER_CONNECTION : '') +
    `select m.schema_version, d.* from (select ${checked} as schema_version offset 0) m left join (${page.text}) d on m.schema_version = ${version}` +
    ` where m.schema_version is not null order by ${page.orderBy('d.')}`;
  return CompiledQuery.raw(text, p.values) as CompiledQuery<CheckedRow>;
}

/** The gated segment's rows as JSON records (gatedJsonSegmentQuery); none when the check did not hold or the page is empty. */
export async function queryGatedJson(db: Db, tableId: string, check: SchemaCheck, columns: JsonColumn[], conditions: Condition[], userId: string | undefined, segment: Segment): Promise<string[]> {
  if (segment.part === 'all' && segment.after) throw new Error('an `all` segment starts from the beginning');
  const found = await executeCompiled(db, gatedJsonSegmentQuery(tableId, check, columns, conditions, userId, segment));
  return found.map((row) => row.j);
}

/** A checked page's row: a stored row with the version, or the all-null row of a stale or empty page. */
type CheckedRow = { schema_version: number; row_id: string | null; [column: string]: unknown };

/**
 * A segment's page on a database that plans each statement without knowing how many rows a filter keeps
 * (SQLite: no statistics of value ranges it could trust, and a plan once made is kept by text). A page whose
 * plan cannot depend on its values runs as is. Any other page is read in one of two bounded ways, never by
 * fetching and sorting every matching row:
 * 1. walking the sort's index: at most `walkPerRow` rows examined per row asked (QUERY_BOUNDS), filtered as
 *    they come (a filter that keeps more than about 1 row in 25: the usual case);
 * 2. else through the filter's own index, if it matches at most `filteredSortRows` rows (counted first, up to
 *    that many), which are then sorted.
 * Neither: QueryTooBroad (400 with a hint): the filter keeps few rows in sort order but too many to sort.
 */
export async function queryRows(db: Db, dialect: DialectName, tableId: string, conditions: Condition[], userId: string | undefined, segment: Segment, bounds: QueryBounds = QUERY_BOUNDS): Promise<StoredRow[]> {
  if (segment.part === 'all' && segment.after) throw new Error('an `all` segment starts from the beginning');
  if (segment.limit === 0 || planIgnoresValues(conditions, userId, segment.sort)) return executeCompiled(db, segmentQuery(dialect, tableId, conditions, userId, segment));
  const walk = walkLength(segment, bounds);
  const walked = await executeCompiled(db, sortedWalkQuery(dialect, tableId, conditions, userId, segment, walk));
  if (walked.length >= segment.limit) return walked;
  if ((await walkNotFilledBecause(db, dialect, tableId, conditions, userId, segment, bounds)) === 'segment_ended') return walked;
  return executeCompiled(db, filteredSortQuery(dialect, tableId, conditions, userId, segment, bounds.filteredSortRows));
}

/** Rows of the sort's index a segment's walk examines at most. */
export const walkLength = (segment: Segment, bounds: QueryBounds = QUERY_BOUNDS) => Math.max(bounds.minWalk, segment.limit * bounds.walkPerRow);

/**
 * Why a walk of the sort's index (walkLength rows) did not fill the segment's page: the segment ended within
 * it, or the filter keeps few rows in sort order but at most `filteredSortRows` in all (a sort of those is
 * bounded). Else QueryTooBroad. Two statements, each bounded: the walk's length on the sort's index, and a
 * count of the matching rows through a filter's index stopped past the cap.
 */
export async function walkNotFilledBecause(db: Db, dialect: DialectName, tableId: string, conditions: Condition[], userId: string | undefined, segment: Segment, bounds: QueryBounds = QUERY_BOUNDS): Promise<'segment_ended' | 'few_matches'> {
  const walk = walkLength(segment, bounds);
  const [examined] = await executeCompiled(db, sortedWalkLengthQuery(dialect, tableId, conditions, segment, walk));
  // The walk reached the segment's end: every row it holds was examined.
  if (Number(examined?.n) < walk) return 'segment_ended';
  if (userId === undefined && !conditions.some((c) => seekable(c) && !sameField(c.field, segment.sort))) throw new QueryTooBroad();
  const [matching] = await executeCompiled(db, filteredCountQuery(dialect, tableId, conditions, userId, bounds.filteredSortRows));
  if (Number(matching?.n) > bounds.filteredSortRows) throw new QueryTooBroad();
  return 'few_matches';
}

/**
 * PostgreSQL's first try at a page whose plan depends on its values: the walk of the sort's index
 * (walkLength rows at most), filtered as it comes, as gated JSON records (gatedJsonSegmentQuery's gate).
 * The page when it fills; fewer rows say nothing (the walk ran short, or the gate did not hold).
 */
export async function queryGatedWalkJson(db: Db, tableId: string, check: SchemaCheck, columns: JsonColumn[], conditions: Condition[], userId: string | undefined, segment: Segment): Promise<string[]> {
  const found = await executeCompiled(db, gatedJsonSegmentQuery(tableId, check, columns, conditions, userId, segment, walkLength(segment)));
  return found.map((row) => row.j);
}

export interface QueryBounds {
  /** Rows of the sort's index a page examines at most, per row it asks for (a filter keeping 1 row in 25 fills it)... */
  walkPerRow: number;
  /** ...and at least this many. */
  minWalk: number;
  /** Matching rows a page sorts at most when it reads them through the filter's index. */
  filteredSortRows: number;
}

export const QUERY_BOUNDS: QueryBounds = { walkPerRow: 25, minWalk: 1_000, filteredSortRows: 10_000 };

/** A query whose filter keeps too few rows in sort order to walk and too many to sort: the service answers 400. */
export class QueryTooBroad extends Error {
  constructor() {
    super('query too broad for its sort');
  }
}

/** A condition an index can seek (a value or a range of one field; each field has its index). */
const seekable = (c: Condition) => c.op === 'eq' || c.op === 'in' || c.op === 'gt' || c.op === 'gte' || c.op === 'lt' || c.op === 'lte' || (c.op === 'is_null' && c.isNull);

/** The segment's first `walk` rows in sort order (and only the conditions on the sort field): a range of the sort's index. */
function walkSql(p: Parameters, tableId: string, conditions: Condition[], segment: Segment, walk: number, columns?: string): string {
  const onSort = conditions.filter((c) => sameField(c.field, segment.sort));
  return pageSql(p, tableId, onSort, undefined, { ...segment, limit: walk }, { columns }).text;
}

/** Way 1: the walk, filtered by the other conditions and the user scope, in order, `segment.limit` rows at most. */
export function sortedWalkQuery(dialect: DialectName, tableId: string, conditions: Condition[], userId: string | undefined, segment: Segment, walk: number): CompiledQuery<StoredRow> {
  const p = new Parameters(dialect);
  const from = `(${walkSql(p, tableId, conditions, segment, walk)}) walked`;
  const others = conditions.filter((c) => !sameField(c.field, segment.sort));
  return CompiledQuery.raw(pageSql(p, tableId, others, userId, segment, { from }).text, p.values) as CompiledQuery<StoredRow>;
}

/** How many rows the walk holds (`walk` when the segment goes on past it): the sort's index only. */
function sortedWalkLengthQuery(dialect: DialectName, tableId: string, conditions: Condition[], segment: Segment, walk: number): CompiledQuery<{ n: number }> {
  const p = new Parameters(dialect);
  return CompiledQuery.raw(`select count(*) as n from (${walkSql(p, tableId, conditions, segment, walk, 'row_id')}) walked`, p.values) as CompiledQuery<{ n: number }>;
}

/** The rows matching every condition, `cap` + 1 at most, in no order: the planner takes a filter's index. */
function matchingSql(p: Parameters, tableId: string, conditions: Condition[], userId: string | undefined, columns: string, cap: number): string {
  const where = conditions.map((c) => conditionSql(c, p));
  if (userId !== undefined) where.push(`user_id = ${p.add(userId)}`);
  return `select ${columns} from ${tableIdent(tableId)} where ${where.join(' and ')} limit ${rowLimitText(cap + 1)}`;
}

function filteredCountQuery(dialect: DialectName, tableId: string, conditions: Condition[], userId: string | undefined, cap: number): CompiledQuery<{ n: number }> {
  const p = new Parameters(dialect);
  return CompiledQuery.raw(`select count(*) as n from (${matchingSql(p, tableId, conditions, userId, '1 as one', cap)}) matching`, p.values) as CompiledQuery<{ n: number }>;
}

/** Way 2: the matching rows (known to be at most `cap`), then the segment's range, order and limit over them. */
export function filteredSortQuery(dialect: DialectName, tableId: string, conditions: Condition[], userId: string | undefined, segment: Segment, cap: number): CompiledQuery<StoredRow> {
  const p = new Parameters(dialect);
  const from = `(${matchingSql(p, tableId, conditions, userId, '*', cap)}) matching`;
  return CompiledQuery.raw(pageSql(p, tableId, [], undefined, segment, { from }).text, p.values) as CompiledQuery<StoredRow>;
}

/**
 * A page of one segment and the schema version it was read under (undefined: the app has no such table,
 * or the presumed secret key of `check` is not live).
 * When the version is not `check.schemaVersion`, `rows` is empty and the caller's metadata is stale.
 */
export async function queryCheckedRows(
  db: Db,
  tableId: string,
  check: SchemaCheck,
  conditions: Condition[],
  userId: string | undefined,
  segment: Segment,
): Promise<{ schemaVersion: number | undefined; rows: StoredRow[] }> {
  if (segment.part === 'all' && segment.after) throw new Error('an `all` segment starts from the beginning');
  const found = await executeCompiled(db, checkedSegmentQuery(tableId, check, conditions, userId, segment));
  const first = found[0];
  if (first === undefined) return { schemaVersion: undefined, rows: [] };
  return { schemaVersion: Number(first.schema_version), rows: first.row_id === null ? [] : (found as unknown as StoredRow[]) };
}
