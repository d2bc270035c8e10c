import { conflict, notFound } from '../../errors.js';
import type { Db } from '../../store/db.js';
import type { DialectName } from '../../store/dialect.js';
import { findCustomTable, type CustomTable } from '../../store/repos/custom-tables.js';

/** Whether this database's nodes may cache table metadata (see store/tables-dialect.ts); routes ask it here. */
export { cachesTableMetadata } from '../../store/tables-dialect.js';

// A node's copy of custom tables' metadata (the table and its columns), so a query on PostgreSQL needs no
// round trip to read it (SQLite reads it afresh: cachesTableMetadata in store/tables-dialect.ts). The copy is never trusted on its own: every change to a table's columns bumps its
// `schema_version` in the same transaction (on whichever node or process makes it), and the statement that
// uses the copy checks that version in the same snapshot as its rows. A stale copy is reloaded and the
// work run again, so a change is seen at once on every node.

/** Answered by work whose statement found another schema version than the metadata it was built from. */
export const STALE = Symbol('stale metadata');

/** At most this many tables are kept; the oldest entry goes first (a dropped entry costs one read). */
const MAX_TABLES = 1000;
/** A first try and two reloads: more only if the table's columns keep changing under the query. */
const MAX_ATTEMPTS = 3;

export class TableMetadataCache {
  private readonly tables = new Map<string, CustomTable>();

  constructor(private readonly maxTables = MAX_TABLES) {}

  /** The app's table as last read on this node; another app's table id finds nothing. */
  get(appId: string, tableId: string): CustomTable | undefined {
    const table = this.tables.get(tableId);
    return table?.appId === appId ? table : undefined;
  }

  set(table: CustomTable): void {
    this.tables.delete(table.id);
    if (this.tables.size >= this.maxTables) this.tables.delete(this.tables.keys().next().value!);
    this.tables.set(table.id, table);
  }

  /** Drops the app's entry (after this node changed the table: saves the next query a stale try). */
  forget(appId: string, tableId: string): void {
    if (this.get(appId, tableId)) this.tables.delete(tableId);
  }
}

export interface CachedTableDeps {
  db: Db;
  store: { dialect: DialectName };
  tableMetadata: TableMetadataCache;
}

async function load(deps: CachedTableDeps, appId: string, tableId: string): Promise<CustomTable> {
  const table = await findCustomTable(deps.db, deps.store.dialect, appId, tableId);
  if (!table) {
    deps.tableMetadata.forget(appId, tableId);
    throw notFound('table not found');
  }
  deps.tableMetadata.set(table);
  return table;
}

/**
 * Runs `work` with the app's table from this node's copy (read when there is none; 404 for a missing
 * table or another app's). `work` must check `table.schemaVersion` in its own statement and answer STALE
 * when it differs. A stale answer, or an error (a field the copy does not know, a column dropped since),
 * reloads the metadata: with a new version the work runs again with it; with the same version the error
 * was not about the copy and is thrown.
 */
export async function withCachedTable<T>(deps: CachedTableDeps, appId: string, tableId: string, work: (table: CustomTable) => Promise<T | typeof STALE>): Promise<T> {
  let table = deps.tableMetadata.get(appId, tableId) ?? (await load(deps, appId, tableId));
  for (let attempt = 1; ; attempt++) {
    let failure: unknown = STALE;
    try {
      const result = await work(table);
      if (result !== STALE) return result;
    } catch (error) {
      failure = error;
    }
    const current = await load(deps, appId, tableId);
    if (current.schemaVersion === table.schemaVersion && failure !== STALE) throw failure;
    if (attempt === MAX_ATTEMPTS) throw failure === STALE ? conflict('the table changed while it was read; try again') : failure;
    table = current;
  }
}
