import { rowLimitText } from './limit.js';
import type { DialectName } from './dialect.js';
import { columnIdent, tableIdent } from './repos/custom-rows.js';
import type { RowOwner } from './row-owner.js';

export type { OrgGate, RowOwner } from './row-owner.js';

// The SQL text of a custom table's keyset page (POST .../rows/query): its conditions, its segment's range
// and order, the bounded walk of the sort's index and the filter's matching rows, every value a bound
// parameter. store/repos/custom-rows-query.ts (SQLite's bounded reads) and custom-rows-checked.ts
// (PostgreSQL's schema-version-gated reads) build their statements from these.

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

/** The WHERE term of a page's owner scope, its parameters added to `p`. */
export function ownerSql(owner: RowOwner, p: Parameters): string {
  if (typeof owner === 'string') return `user_id = ${p.add(owner)}`;
  const g = owner.gate;
  return (
    `user_id = ${p.add(owner.key)} and exists (select 1 from sessions gs join organization_members gm on gm.organization_id = gs.active_org_id and gm.user_id = gs.user_id` +
    ` join organizations gg on gg.id = gm.organization_id where gs.id = ${p.add(g.sessionId)} and gs.app_id = ${p.add(g.appId)} and gs.user_id = ${p.add(g.userId)}` +
    ` and gs.active_org_id = ${p.add(g.orgId)} and gs.revoked_at is null and gg.app_id = ${p.add(g.appId)} and gg.deleted_at is null)`
  );
}

/** Collects bound parameters and answers the dialect's placeholder for each. */
export class Parameters {
  readonly values: unknown[] = [];
  constructor(private readonly dialect: DialectName) {}
  add(value: unknown): string {
    this.values.push(value);
    return this.dialect === 'postgres' ? `$${this.values.length}` : '?';
  }
}

export function conditionSql(c: Condition, p: Parameters): string {
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
export function pageSql(
  p: Parameters,
  tableId: string,
  conditions: Condition[],
  userId: RowOwner | undefined,
  segment: Segment,
  shape: { columns?: string; gate?: string; from?: string } = {},
): { text: string; orderBy: (prefix: string) => string } {
  const where = shape.gate === undefined ? [] : [shape.gate];
  for (const c of conditions) where.push(conditionSql(c, p));
  if (userId !== undefined) where.push(ownerSql(userId, p));
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

export const sameField = (a: FieldRef, b: FieldRef) => (a.kind === 'column' ? b.kind === 'column' && a.columnId === b.columnId : b.kind === 'meta' && a.name === b.name);

/**
 * Whether the best plan for a page is the same whatever its values: the only index it can use is the
 * sort's (no condition binds a value on another field, no user scope). Only such a page runs as a named
 * statement on PostgreSQL. PostgreSQL may keep a named statement's generic plan, chosen without the
 * values: after a few pages of `score >= 500000` (half the rows) sorted by another column, it walks the
 * sort index and filters, and then does the same for `score >= 999990` (ten rows): 52 ms over 100,000
 * rows where planning with the value takes the score index in under 1 ms (docs/tables.md). Every other
 * page is planned with its values (an unnamed statement).
 */
export function planIgnoresValues(conditions: Condition[], userId: RowOwner | undefined, sort: FieldRef): boolean {
  return userId === undefined && conditions.every((c) => c.op === 'is_null' || sameField(c.field, sort));
}

/** A condition an index can seek (a value or a range of one field; each field has its index). */
export const seekable = (c: Condition) => c.op === 'eq' || c.op === 'in' || c.op === 'gt' || c.op === 'gte' || c.op === 'lt' || c.op === 'lte' || (c.op === 'is_null' && c.isNull);

/** The segment's first `walk` rows in sort order (and only the conditions on the sort field): a range of the sort's index. */
export function walkSql(p: Parameters, tableId: string, conditions: Condition[], segment: Segment, walk: number, columns?: string): string {
  const onSort = conditions.filter((c) => sameField(c.field, segment.sort));
  return pageSql(p, tableId, onSort, undefined, { ...segment, limit: walk }, { columns }).text;
}

/** The rows matching every condition, `cap` + 1 at most, in no order: the planner takes a filter's index. */
export function matchingSql(p: Parameters, tableId: string, conditions: Condition[], userId: RowOwner | undefined, columns: string, cap: number): string {
  const where = conditions.map((c) => conditionSql(c, p));
  if (userId !== undefined) where.push(ownerSql(userId, p));
  return `select ${columns} from ${tableIdent(tableId)} where ${where.join(' and ')} limit ${rowLimitText(cap + 1)}`;
}
