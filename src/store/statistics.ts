import { sql } from 'kysely';
import { isSqlite, type Db } from './db.js';

/**
 * Keeps the query planner's statistics current where that is the service's job. SQLite keeps none by itself:
 * `PRAGMA optimize` runs ANALYZE on the tables that need it (never analyzed, or grown or shrunk about tenfold
 * since), each bounded by `analysis_limit` (set when the store opens), so it costs milliseconds even at a
 * million rows. `startUp` adds 0x10000, which also looks at tables never analyzed before (a new database, a
 * table a migration made). PostgreSQL's autovacuum analyzes tables as they change: nothing to do there.
 */
export async function refreshPlannerStatistics(db: Db, options: { startUp?: boolean } = {}): Promise<void> {
  if (!isSqlite(db)) return;
  await sql.raw(options.startUp ? 'pragma optimize = 0x10002' : 'pragma optimize').execute(db);
}
