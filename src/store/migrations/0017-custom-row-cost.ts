import { sql, type Kysely } from 'kysely';

// Issue 35.3: a custom-table row counts what it costs the database (rowCost in
// src/services/tables/values.ts), no longer its data's JSON size alone. Rows written before counted only
// that JSON size in `size_bytes`; this adds the overheads the service now charges, and sets each app's
// `used_bytes` to the sum with each table's own first pages (tableCost), so later writes charge and free consistent amounts. The figures are the ones
// this release charges, written here as they stood: a later change of the formula brings its own migration.

const ROW_OVERHEAD_BYTES = 500;
const INDEXED_VALUE_OVERHEAD_BYTES = 64;
const INDEXED_TEXT_FACTOR = 3;
const TABLE_OVERHEAD_BYTES = 40 * 1024;
const INDEXED_COLUMN_OVERHEAD_BYTES = 16 * 1024;
const HEX = /^[0-9a-f]{32}$/;

/** `t_<hex>` / `c_<hex>` from a stored UUID, checked (never user text). */
function ident(prefix: 't' | 'c', id: string): string {
  const hex = id.replace(/-/g, '');
  if (!HEX.test(hex)) throw new Error(`0017: refusing identifier for ${id}`);
  return `${prefix}_${hex}`;
}

export async function up(db: Kysely<any>): Promise<void> {
  const tables: { id: string; app_id: string }[] = await db.selectFrom('custom_tables').select(['id', 'app_id']).execute();
  const columns: { id: string; table_id: string; type: string }[] = await db.selectFrom('custom_columns').select(['id', 'table_id', 'type']).execute();
  const used = new Map<string, number>();
  for (const table of tables) {
    const indexed = columns.filter((c) => c.table_id === table.id && c.type !== 'json');
    // octet_length: the UTF-8 bytes of a text value on both databases (SQLite 3.43+).
    const textBytes = indexed.filter((c) => c.type === 'text').map((c) => `coalesce(octet_length(${ident('c', c.id)}), 0)`);
    const perRow = `${ROW_OVERHEAD_BYTES + INDEXED_VALUE_OVERHEAD_BYTES * indexed.length}${textBytes.length ? ` + ${INDEXED_TEXT_FACTOR} * (${textBytes.join(' + ')})` : ''}`;
    const name = ident('t', table.id);
    await sql.raw(`update ${name} set size_bytes = size_bytes + ${perRow}`).execute(db);
    const { rows } = await sql.raw<{ n: number | string | null }>(`select sum(size_bytes) as n from ${name}`).execute(db);
    const tableBytes = TABLE_OVERHEAD_BYTES + INDEXED_COLUMN_OVERHEAD_BYTES * indexed.length;
    used.set(table.app_id, (used.get(table.app_id) ?? 0) + tableBytes + Number(rows[0]?.n ?? 0));
  }
  for (const [appId, bytes] of used) {
    await db.updateTable('custom_table_usage').set({ used_bytes: bytes }).where('app_id', '=', appId).execute();
  }
}

export async function down(): Promise<void> {
  // The recount is not undone: an earlier release reads a larger used_bytes, which only errs towards the limit.
}
