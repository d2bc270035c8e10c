import { CompiledQuery } from 'kysely';
import { rowLimitText } from '../limit.js';
import { executeCompiled, type Db } from '../db.js';
import type { DialectName } from '../dialect.js';
import { columnIdent, tableIdent, type StoredRow } from './custom-rows.js';

// The keyset SELECT of POST .../rows/query. A request runs one or two of them, so the SQL text is written
// here directly instead of through Kysely's builder, whose operation tree and compiler cost about as much
// as the statement itself. Nothing is cached, so nothing can go stale after a schema change: the text is
// rebuilt from the current columns on every call (SQLite's statement cache then reuses the prepared
// statement by its text). Identifiers still come only from tableIdent/columnIdent (generated UUIDs);
// every value is a bound parameter.

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

/** The segment's SELECT as SQL text and its parameters. Exported for the unit test of its shapes. */
export function segmentQuery(dialect: DialectName, tableId: string, conditions: Condition[], userId: string | undefined, segment: Segment): CompiledQuery<StoredRow> {
  const p = new Parameters(dialect);
  const where = conditions.map((c) => conditionSql(c, p));
  if (userId !== undefined) where.push(`user_id = ${p.add(userId)}`);
  const s = fieldSql(segment.sort);
  const dir = segment.dir === 'asc' ? 'asc' : 'desc';
  const cmp = segment.dir === 'asc' ? '>' : '<';
  let order: string;
  if (segment.part === 'nulls') {
    where.push(`${s} is null`);
    if (segment.after) where.push(`row_id ${cmp} ${p.add(segment.after.rowId)}`);
    order = `row_id ${dir}`;
  } else {
    if (segment.part === 'values') where.push(segment.after ? `(${s}, row_id) ${cmp} (${p.add(segment.after.value)}, ${p.add(segment.after.rowId)})` : `${s} is not null`);
    order = `${s} ${dir}, row_id ${dir}`;
  }
  const filter = where.length === 0 ? '' : ` where ${where.join(' and ')}`;
  return CompiledQuery.raw(`select * from ${tableIdent(tableId)}${filter} order by ${order} limit ${rowLimitText(segment.limit)}`, p.values) as CompiledQuery<StoredRow>;
}

export async function queryRows(db: Db, dialect: DialectName, tableId: string, conditions: Condition[], userId: string | undefined, segment: Segment): Promise<StoredRow[]> {
  if (segment.part === 'all' && segment.after) throw new Error('an `all` segment starts from the beginning');
  return executeCompiled(db, segmentQuery(dialect, tableId, conditions, userId, segment));
}
