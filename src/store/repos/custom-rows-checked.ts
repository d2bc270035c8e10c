import { CompiledQuery } from 'kysely';
import { executeCompiled, type Db } from '../db.js';
import { PREPARE_PER_CONNECTION } from '../pg-pool.js';
import { pageSql, Parameters, planIgnoresValues, sameField, walkSql, type Condition, type RowOwner, type Segment } from '../custom-rows-sql.js';
import type { ColumnType } from '../tables-dialect.js';
import { columnIdent, type StoredRow } from './custom-rows.js';

// PostgreSQL's pages of a custom table, each checked against the table's schema version in its own
// statement, since the columns it reads may come from a node's cache (custom-rows-query.ts says why the
// text is written directly).

/**
 * Whose metadata a page was built from: the app (the tenant key) and the table's schema version it read;
 * with `secretKey`, the statement also confirms the secret key the route presumes (KeyGate).
 */
export interface SchemaCheck {
  appId: string;
  schemaVersion: number;
  secretKey?: { hash: string; now: string };
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
 * user_id, organization_id, created_by, created_at, updated_at, in that order), so node-postgres reads one text per row instead of
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
    `'{"row_id":"' || row_id || '","data":{' || ${data} || '},"user_id":' || ${OWNER_JSON}` +
    ` || ',"created_at":"' || created_at || '","updated_at":"' || updated_at || '"}' as j`
  );
}

/**
 * user_id, organization_id and created_by as records.ts writes them: an organisation's owner key
 * ('org:<id>', migration 0035) is its organization_id, with user_id null.
 */
const OWNER_JSON =
  `case when user_id like 'org:%' then 'null,"organization_id":' || to_json(substr(user_id, 5))::text` +
  ` else coalesce(to_json(user_id)::text, 'null') || ',"organization_id":null' end || ',"created_by":' || coalesce(to_json(created_by)::text, 'null')`;

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
export function gatedJsonSegmentQuery(tableId: string, check: SchemaCheck, columns: JsonColumn[], conditions: Condition[], userId: RowOwner | undefined, segment: Segment, walk?: number): CompiledQuery<{ j: string }> {
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
export function checkedSegmentQuery(tableId: string, check: SchemaCheck, conditions: Condition[], userId: RowOwner | undefined, segment: Segment): CompiledQuery<CheckedRow> {
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
export async function queryGatedJson(db: Db, tableId: string, check: SchemaCheck, columns: JsonColumn[], conditions: Condition[], userId: RowOwner | undefined, segment: Segment): Promise<string[]> {
  if (segment.part === 'all' && segment.after) throw new Error('an `all` segment starts from the beginning');
  const found = await executeCompiled(db, gatedJsonSegmentQuery(tableId, check, columns, conditions, userId, segment));
  return found.map((row) => row.j);
}

/** A checked page's row: a stored row with the version, or the all-null row of a stale or empty page. */
type CheckedRow = { schema_version: number; row_id: string | null; [column: string]: unknown };

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
  userId: RowOwner | undefined,
  segment: Segment,
): Promise<{ schemaVersion: number | undefined; rows: StoredRow[] }> {
  if (segment.part === 'all' && segment.after) throw new Error('an `all` segment starts from the beginning');
  const found = await executeCompiled(db, checkedSegmentQuery(tableId, check, conditions, userId, segment));
  const first = found[0];
  if (first === undefined) return { schemaVersion: undefined, rows: [] };
  return { schemaVersion: Number(first.schema_version), rows: first.row_id === null ? [] : (found as unknown as StoredRow[]) };
}
