import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cachingStatements } from './statement-cache.js';

describe('better-sqlite3 statement cache (issue 14)', () => {
  it('compiles each SQL text once and answers with the current rows', () => {
    const database = new SQLite(':memory:');
    const db = cachingStatements(database, 3);
    db.prepare('create table t (id integer primary key, v text)').run([]);
    const insert = db.prepare('insert into t (v) values (?)');
    expect(db.prepare('insert into t (v) values (?)')).toBe(insert);
    insert.run(['a']);
    db.prepare('insert into t (v) values (?)').run(['b']);
    expect(db.prepare('select v from t order by id').all([])).toEqual([{ v: 'a' }, { v: 'b' }]);
    expect(db.prepare('select v from t where id = ?').all([2])).toEqual([{ v: 'b' }]);
    expect(db.prepare('select v from t where id = ?').all([1])).toEqual([{ v: 'a' }]);
    db.close();
  });

  it('is bounded: the least recently used text is evicted past the limit', () => {
    const database = new SQLite(':memory:');
    const db = cachingStatements(database, 2);
    const one = db.prepare('select 1 as n');
    db.prepare('select 2 as n');
    expect(db.prepare('select 1 as n')).toBe(one); // 1 is now the most recent
    db.prepare('select 3 as n'); // evicts 2
    expect(db.cachedStatements()).toBe(2);
    expect(db.prepare('select 1 as n')).toBe(one);
    expect(db.prepare('select 3 as n').all([])).toEqual([{ n: 3 }]);
    db.close();
  });

  it('a cached select * sees a column added after it was compiled (SQLite re-prepares it)', () => {
    const database = new SQLite(':memory:');
    const db = cachingStatements(database);
    db.prepare('create table t (id integer primary key)').run([]);
    db.prepare('insert into t (id) values (1)').run([]);
    expect(db.prepare('select * from t').all([])).toEqual([{ id: 1 }]);
    database.exec("alter table t add column v text default 'x'");
    expect(db.prepare('select * from t').all([])).toEqual([{ id: 1, v: 'x' }]);
    db.close();
  });
});
