import { CompiledQuery, sql } from 'kysely';
import type { Db } from '../../src/store/db.js';
import { TEST_DB } from './db.js';

/**
 * The plan the database makes for a statement, as text: SQLite's EXPLAIN QUERY PLAN details, one a line;
 * PostgreSQL's EXPLAIN, with sequential scans priced out (`enable_seqscan = off` for this statement only):
 * a test database holds a few rows, where a scan is always cheapest, so the plan shows which index serves
 * the statement once a scan is not worth it, and a `Seq Scan` left in it means no index can.
 */
export async function queryPlan(db: Db, query: { sql: string; parameters: readonly unknown[] }): Promise<string> {
  if (TEST_DB === 'sqlite') {
    const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
    return rows.map((row) => row.detail).join('\n');
  }
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]));
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

/** A plan reads no table whole: no SQLite `SCAN` of a table (a covering-index walk is named as such), no PostgreSQL `Seq Scan`. */
export function scans(plan: string): string[] {
  return plan.split('\n').filter((line) => /\bSeq Scan\b/.test(line) || (/^\s*SCAN /.test(line) && !/USING (COVERING )?INDEX|USING PRIMARY KEY/.test(line)));
}

/** Refreshes the planner's statistics of every table (ANALYZE on both databases), so a plan is the one made for the rows the test wrote. */
export async function analyze(db: Db): Promise<void> {
  await sql`analyze`.execute(db);
}
