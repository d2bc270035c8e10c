import type { Database as SqliteHandle, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** How many distinct SQL texts keep their compiled statement (the app issues a few hundred at most). */
export const STATEMENT_CACHE_SIZE = 512;

/**
 * Wraps a better-sqlite3 handle for Kysely's SqliteDialect so that `prepare(sql)` compiles each SQL text
 * once: the statement is kept in a bounded LRU map keyed by the exact text. Exact: a statement is the
 * compiled form of its text (SQLite re-prepares it by itself after a schema change), and Kysely runs one
 * query at a time on its single SQLite connection, so a cached statement is never busy when reused.
 */
export function cachingStatements(database: SqliteHandle, max = STATEMENT_CACHE_SIZE): SqliteDatabase & { cachedStatements(): number } {
  const cache = new Map<string, Statement>();
  return {
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) {
        // Most recently used last, so the first key is the one to evict.
        cache.delete(sql);
        cache.set(sql, statement);
        return statement;
      }
      statement = database.prepare(sql);
      cache.set(sql, statement);
      if (cache.size > max) cache.delete(cache.keys().next().value as string);
      return statement;
    },
    close() {
      cache.clear();
      database.close();
    },
    cachedStatements: () => cache.size,
  };
}
