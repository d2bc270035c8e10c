import { describe, expect, it } from 'vitest';
import { Kysely, SqliteDialect } from 'kysely';
import SQLite from 'better-sqlite3';
import { rowLimit, rowLimitText } from './limit.js';

describe('rowLimit', () => {
  const db = new Kysely<{ t: { id: number } }>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });

  it('writes the limit into the SQL text, not as a bound parameter', () => {
    const query = db.selectFrom('t').selectAll().limit(rowLimit(50)).offset(rowLimit(100)).compile();
    expect(query.sql).toBe('select * from "t" limit 50 offset 100');
    expect(query.parameters).toEqual([]);
    expect(rowLimitText(7)).toBe('7');
  });

  it('refuses anything but a safe non-negative integer', () => {
    for (const bad of [1.5, -1, Number.NaN, Infinity, 2 ** 60, '1; drop table t' as unknown as number]) {
      expect(() => rowLimit(bad)).toThrow(/non-negative integer/);
      expect(() => rowLimitText(bad)).toThrow(/non-negative integer/);
    }
  });
});
