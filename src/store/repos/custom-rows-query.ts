import { CompiledQuery } from 'kysely';
import { executeCompiled, type Db } from '../db.js';
import type { DialectName } from '../dialect.js';
import { matchingSql, pageSql, Parameters, planIgnoresValues, sameField, seekable, walkSql, type Condition, type RowOwner, type Segment } from '../custom-rows-sql.js';
import { gatedJsonSegmentQuery, type JsonColumn, type SchemaCheck } from './custom-rows-checked.js';
import type { StoredRow } from './custom-rows.js';

// The keyset SELECT of POST .../rows/query. A request runs one or two of them, so the SQL text is written
// here directly instead of through Kysely's builder, whose operation tree and compiler cost about as much
// as the statement itself. The text is rebuilt on every call from the columns the caller has (SQLite's
// statement cache then reuses the prepared statement by its text); those may come from a node's cache, so
// on PostgreSQL the statement checks the table's schema version itself (gatedJsonSegmentQuery, and
// checkedSegmentQuery when that finds nothing), and runs as a named statement of its connection
// (PREPARE_PER_CONNECTION in store/pg-pool.ts) when its plan cannot depend on its values
// (planIgnoresValues). Identifiers still come only from tableIdent/columnIdent (generated UUIDs); every
// value, column names included, is a bound parameter.
//
// The SQL text is store/custom-rows-sql.ts; PostgreSQL's checked pages are custom-rows-checked.ts, re-exported
// here with the types so that the tables service reads every page through one module.
export type { Condition, FieldRef, OrgGate, RowOwner, Segment } from '../custom-rows-sql.js';
export { planIgnoresValues } from '../custom-rows-sql.js';
export { checkedSegmentQuery, gatedJsonSegmentQuery, queryCheckedRows, queryGatedJson, type JsonColumn, type SchemaCheck } from './custom-rows-checked.js';

/** The segment's SELECT as SQL text and its parameters. Exported for the unit test of its shapes. */
export function segmentQuery(dialect: DialectName, tableId: string, conditions: Condition[], userId: RowOwner | undefined, segment: Segment): CompiledQuery<StoredRow> {
  const p = new Parameters(dialect);
  return CompiledQuery.raw(pageSql(p, tableId, conditions, userId, segment).text, p.values) as CompiledQuery<StoredRow>;
}

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
export async function queryRows(db: Db, dialect: DialectName, tableId: string, conditions: Condition[], userId: RowOwner | undefined, segment: Segment, bounds: QueryBounds = QUERY_BOUNDS): Promise<StoredRow[]> {
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
export async function walkNotFilledBecause(db: Db, dialect: DialectName, tableId: string, conditions: Condition[], userId: RowOwner | undefined, segment: Segment, bounds: QueryBounds = QUERY_BOUNDS): Promise<'segment_ended' | 'few_matches'> {
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
export async function queryGatedWalkJson(db: Db, tableId: string, check: SchemaCheck, columns: JsonColumn[], conditions: Condition[], userId: RowOwner | undefined, segment: Segment): Promise<string[]> {
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

/** Way 1: the walk, filtered by the other conditions and the user scope, in order, `segment.limit` rows at most. */
export function sortedWalkQuery(dialect: DialectName, tableId: string, conditions: Condition[], userId: RowOwner | undefined, segment: Segment, walk: number): CompiledQuery<StoredRow> {
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

function filteredCountQuery(dialect: DialectName, tableId: string, conditions: Condition[], userId: RowOwner | undefined, cap: number): CompiledQuery<{ n: number }> {
  const p = new Parameters(dialect);
  return CompiledQuery.raw(`select count(*) as n from (${matchingSql(p, tableId, conditions, userId, '1 as one', cap)}) matching`, p.values) as CompiledQuery<{ n: number }>;
}

/** Way 2: the matching rows (known to be at most `cap`), then the segment's range, order and limit over them. */
export function filteredSortQuery(dialect: DialectName, tableId: string, conditions: Condition[], userId: RowOwner | undefined, segment: Segment, cap: number): CompiledQuery<StoredRow> {
  const p = new Parameters(dialect);
  const from = `(${matchingSql(p, tableId, conditions, userId, '*', cap)}) matching`;
  return CompiledQuery.raw(pageSql(p, tableId, [], undefined, segment, { from }).text, p.values) as CompiledQuery<StoredRow>;
}
