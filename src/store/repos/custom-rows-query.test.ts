import { describe, expect, it } from 'vitest';
import { checkedSegmentQuery, gatedJsonSegmentQuery, segmentQuery, type Condition, type Segment } from './custom-rows-query.js';

const TABLE = '1bad6eed-0000-4000-8000-000000000001';
const SCORE = 'a827dac1-0000-4000-8000-000000000002';
const DUE = 'bba9dc5c-0000-4000-8000-000000000003';
const t = 't_1bad6eed000040008000000000000001';
const score = 'c_a827dac1000040008000000000000002';
const due = 'c_bba9dc5c000040008000000000000003';
const gte: Condition = { op: 'gte', field: { kind: 'column', columnId: SCORE }, value: 5 };
const sort = { kind: 'column', columnId: DUE } as const;

describe('custom-table keyset SELECT text', () => {
  it('numbers PostgreSQL placeholders in parameter order; SQLite uses ?', () => {
    const after = { value: '2026-01-01T00:00:00.000Z', rowId: 'r1' };
    const pg = segmentQuery('postgres', TABLE, [gte], 'u1', { sort, dir: 'desc', part: 'values', after, limit: 51 });
    expect(pg.sql).toBe(`select * from ${t} where ${score} >= $1 and user_id = $2 and (${due}, row_id) < ($3, $4) order by ${due} desc, row_id desc limit 51`);
    expect(pg.parameters).toEqual([5, 'u1', after.value, 'r1']);
    const sqlite = segmentQuery('sqlite', TABLE, [gte], undefined, { sort, dir: 'asc', part: 'nulls', after, limit: 3 });
    expect(sqlite.sql).toBe(`select * from ${t} where ${score} >= ? and ${due} is null and row_id > ? order by row_id asc limit 3`);
    expect(sqlite.parameters).toEqual([5, 'r1']);
  });

  it('an `all` segment has no null predicate: the database orders nulls itself', () => {
    const q = segmentQuery('postgres', TABLE, [], undefined, { sort, dir: 'desc', part: 'all', limit: 51 });
    expect(q.sql).toBe(`select * from ${t} order by ${due} desc, row_id desc limit 51`);
  });

  it('in, contains, ne and is_null bind every value', () => {
    const field = { kind: 'column', columnId: SCORE } as const;
    const q = segmentQuery('postgres', TABLE, [
      { op: 'in', field, values: [1, 2] },
      { op: 'contains', field, pattern: '%a%' },
      { op: 'ne', field, value: 3 },
      { op: 'is_null', field: { kind: 'meta', name: 'user_id' }, isNull: false },
    ], undefined, { sort: { kind: 'meta', name: 'created_at' }, dir: 'asc', part: 'values', limit: 2 });
    expect(q.sql).toBe(
      `select * from ${t} where ${score} in ($1, $2) and lower(${score}) like $3 escape '\\' and (${score} <> $4 or ${score} is null) and user_id is not null and created_at is not null order by created_at asc, row_id asc limit 2`,
    );
    expect(q.parameters).toEqual([1, 2, '%a%', 3]);
  });

  it('a checked segment joins the page to the version gh_checked_table_version answers, and orders the result again', () => {
    const check = { appId: 'app1', schemaVersion: 7 };
    const q = checkedSegmentQuery(TABLE, check, [gte], undefined, { sort, dir: 'desc', part: 'all', limit: 51 });
    // The version is in the text, so a table change never meets a statement prepared before it.
    expect(q.sql).toBe(
      `select m.schema_version, d.* from (select gh_checked_table_version($2, $3, $4, $5) as schema_version offset 0) m` +
        ` left join (select * from ${t} where ${score} >= $1 order by ${due} desc, row_id desc limit 51) d on m.schema_version = 7` +
        ` where m.schema_version is not null order by d.${due} desc, d.row_id desc`,
    );
    expect(q.parameters).toEqual([5, TABLE, 'app1', null, null]);
    const keyed = checkedSegmentQuery(TABLE, { ...check, secretKey: { hash: 'h', now: '2026-01-01T00:00:00.000Z' } }, [], 'u1', { sort, dir: 'asc', part: 'nulls', limit: 3 });
    expect(keyed.sql).toContain(`(select * from ${t} where user_id = $1 and ${due} is null order by row_id asc limit 3) d`);
    expect(keyed.parameters).toEqual(['u1', TABLE, 'app1', 'h', '2026-01-01T00:00:00.000Z']);
    expect(() => checkedSegmentQuery(TABLE, { appId: 'app1', schemaVersion: Number('7 or 1=1') }, [], undefined, { sort, dir: 'asc', part: 'all', limit: 1 })).toThrow(/integer/);
  });

  it('a gated segment writes each row as its JSON record, column names bound, and is gated on the checked version', () => {
    const check = { appId: 'app1', schemaVersion: 7, secretKey: { hash: 'h', now: '2026-01-01T00:00:00.000Z' } };
    const columns = [
      { id: SCORE, name: 'score', type: 'int' as const },
      { id: DUE, name: 'due', type: 'date' as const },
    ];
    const q = gatedJsonSegmentQuery(TABLE, check, columns, [gte], 'u1', { sort, dir: 'desc', part: 'all', limit: 51 });
    expect(q.sql).toBe(
      `select '{"row_id":"' || row_id || '","data":{' || concat_ws(',', $1::text || ${score}::text, $2::text || '"' || to_char(${due} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"')` +
        ` || '},"user_id":' || case when user_id like 'org:%' then 'null,"organization_id":' || to_json(substr(user_id, 5))::text else coalesce(to_json(user_id)::text, 'null') || ',"organization_id":null' end` +
        ` || ',"created_by":' || coalesce(to_json(created_by)::text, 'null') || ',"created_at":"' || created_at || '","updated_at":"' || updated_at || '"}' as j` +
        ` from ${t} where gh_checked_table_version($3, $4, $5, $6) = 7 and ${score} >= $7 and user_id = $8 order by ${due} desc, row_id desc limit 51`,
    );
    // A name is user text: a parameter, JSON-quoted, never part of the SQL.
    expect(q.parameters).toEqual(['"score":', '"due":', TABLE, 'app1', 'h', '2026-01-01T00:00:00.000Z', 5, 'u1']);
    // Over 99 fields, groups of 50 (a function takes at most 100 arguments), each null when all of its values are.
    const many = Array.from({ length: 100 }, (_, n) => ({ id: `a827dac1-0000-4000-8000-${String(n).padStart(12, '0')}`, name: `c${n}`, type: 'text' as const }));
    const wide = gatedJsonSegmentQuery(TABLE, check, many, [], undefined, { sort, dir: 'asc', part: 'all', limit: 1 }).sql;
    expect(wide.match(/nullif\(concat_ws\(',', /g)).toHaveLength(2);
    expect(wide.startsWith('/* prepared */ ')).toBe(true);
    expect(() => gatedJsonSegmentQuery(TABLE, { appId: 'app1', schemaVersion: 1.5 }, [], [], undefined, { sort, dir: 'asc', part: 'all', limit: 1 })).toThrow(/integer/);
  });

  it('on PostgreSQL, only a page whose plan cannot depend on its values runs as a named statement (its plan may be cached)', () => {
    const check = { appId: 'app1', schemaVersion: 7 };
    const after = { value: '2026-01-01T00:00:00.000Z', rowId: 'r1' };
    const named = (conditions: Condition[], userId?: string, segment: Partial<Segment> = {}) =>
      checkedSegmentQuery(TABLE, check, conditions, userId, { sort, dir: 'desc', part: 'values', limit: 51, ...segment }).sql.startsWith('/* prepared */ ');
    const onDue = (op: 'eq' | 'gte' | 'lt', value: unknown): Condition => ({ op, field: sort, value });
    // The sort's index is the only one such a page can use, wherever its cursor and whatever its filter values.
    expect(named([])).toBe(true);
    expect(named([], undefined, { after })).toBe(true);
    expect(named([onDue('gte', after.value), onDue('lt', '2027-01-01')], undefined, { after })).toBe(true);
    expect(named([{ op: 'is_null', field: { kind: 'column', columnId: SCORE }, isNull: false }])).toBe(true);
    expect(named([{ op: 'gte', field: { kind: 'meta', name: 'created_at' }, value: after.value }], undefined, { sort: { kind: 'meta', name: 'created_at' } })).toBe(true);
    // A value on another field, or a user's scope, decides which index is best: planned with the values.
    expect(named([gte])).toBe(false);
    expect(named([gte], undefined, { after })).toBe(false);
    expect(named([{ op: 'eq', field: { kind: 'column', columnId: SCORE }, value: 1 }])).toBe(false);
    expect(named([{ op: 'in', field: { kind: 'meta', name: 'user_id' }, values: ['u1'] }])).toBe(false);
    expect(named([], 'u1')).toBe(false);
    expect(named([{ op: 'gte', field: { kind: 'meta', name: 'updated_at' }, value: after.value }], undefined, { sort: { kind: 'meta', name: 'created_at' } })).toBe(false);
  });

  it('refuses an id that is not a generated UUID', () => {
    expect(() => segmentQuery('sqlite', 'x; drop table users', [], undefined, { sort, dir: 'asc', part: 'all', limit: 1 })).toThrow(/generated UUIDs/);
  });
});
