import { CompiledQuery } from 'kysely';
import { rowLimitText } from '../limit.js';
import { executeCompiled, type Db } from '../db.js';
import type { DialectName } from '../dialect.js';
import { PREPARE_PER_CONNECTION } from '../pg-pool.js';
import { columnIdent, tableIdent, type StoredRow } from './custom-rows.js';

// The keyset SELECT of POST .../rows/query. A request runs one or two of them, so the SQL text is written
// here directly instead of through Kysely's builder, whose operation tree and compiler cost about as much
// as the statement itself. The text is rebuilt on every call from the columns the caller has (SQLite's
// statement cache then reuses the prepared statement by its text); those may come from a node's cache, so
// the statement checks the table's schema version itself (checkedSegmentQuery), and on PostgreSQL runs as
// a named statement of its connection (PREPARE_PER_CONNECTION in store/pg-pool.ts) when its plan cannot
// depend on its values (planIgnoresValues). Identifiers still come
// only from tableIdent/columnIdent (generated UUIDs); every value is a bound parameter.

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

/** The segment's SELECT as SQL text, its parameters added to `p`, and its ORDER BY for a given table alias prefix. */
function pageSql(p: Parameters, tableId: string, conditions: Condition[], userId: string | undefined, segment: Segment): { text: string; orderBy: (prefix: string) => string } {
  const where = conditions.map((c) => conditionSql(c, p));
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
  return { text: `select * from ${tableIdent(tableId)}${filter} order by ${orderBy('')} limit ${rowLimitText(segment.limit)}`, orderBy };
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
  // The version is part of the text (an integer this service wrote), so the text can run as a named
  // statement of its connection: one prepared before the table changed is never sent after it.
  if (!Number.isSafeInteger(check.schemaVersion)) throw new Error('a schema version is an integer');
  const checked = `gh_checked_table_version(${p.add(tableId)}, ${p.add(check.appId)}, ${p.add(check.secretKey?.hash ?? null)}, ${p.add(check.secretKey?.now ?? null)})`;
  const text =
    (planIgnoresValues(conditions, userId, segment.sort) ? PREPARE_PER_CONNECTION : '') +
    `select m.schema_version, d.* from (select ${checked} as schema_version offset 0) m left join (${page.text}) d on m.schema_version = ${check.schemaVersion}` +
    ` where m.schema_version is not null order by ${page.orderBy('d.')}`;
  return CompiledQuery.raw(text, p.values) as CompiledQuery<CheckedRow>;
}

/** A checked page's row: a stored row with the version, or the all-null row of a stale or empty page. */
type CheckedRow = { schema_version: number; row_id: string | null; [column: string]: unknown };

export async function queryRows(db: Db, dialect: DialectName, tableId: string, conditions: Condition[], userId: string | undefined, segment: Segment): Promise<StoredRow[]> {
  if (segment.part === 'all' && segment.after) throw new Error('an `all` segment starts from the beginning');
  return executeCompiled(db, segmentQuery(dialect, tableId, conditions, userId, segment));
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
