import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import type { Deps } from '../../src/deps.js';
import { createApp, createTenant, type AppsDeps } from '../../src/services/apps/apps.js';
import { createTable } from '../../src/services/tables/schema.js';
import { queryRows, QueryTooBroad, segmentQuery, type Condition, type QueryBounds, type Segment } from '../../src/store/repos/custom-rows-query.js';
import { columnIdent, tableIdent } from '../../src/store/repos/custom-rows.js';
import { executeCompiled } from '../../src/store/db.js';
import { openInProcess } from '../helpers/in-process.js';

// docs/tables.md, queries at scale (issue 38): a filter on one column sorted by another is read
// either by walking the sort's index or through the filter's index, each bounded, else QueryTooBroad
// (400 with a hint at the route). The bounds are scaled down here so a table of 3,000 rows shows all three;
// each answer is checked against the same query run unbounded.
let deps: Deps;
let close: (() => Promise<void>) | undefined;
const clock: Clock = { now: () => new Date('2026-11-27T00:00:00.000Z') };
let tableId: string;
let column: Record<'tenth' | 'rare' | 'rank', string>;
const ROWS = 3_000;
const SMALL: QueryBounds = { walkPerRow: 5, minWalk: 100, filteredSortRows: 200 };

beforeAll(async () => {
  ({ deps, close } = await openInProcess(clock, () => ({ RATE_LIMITS: 'off' })));
  const appsDeps: AppsDeps = { db: deps.db, clock, keys: deps.keys, hashcashEnabled: false };
  const tenant = await createTenant(appsDeps, 'T');
  const app = await createApp(appsDeps, tenant.tenant_id, 'A', {});
  const table = await createTable(deps, app.app_id, {
    name: 'scores',
    columns: [
      { name: 'tenth', type: 'int' },
      { name: 'rare', type: 'int' },
      { name: 'rank', type: 'int' },
    ],
  });
  tableId = table.table_id;
  column = Object.fromEntries(table.columns.map((c) => [c.name, c.column_id])) as typeof column;
  // tenth: i % 10 (a value keeps 1 row in 10); rare: i % 500 (1 in 500); rank: a shuffle of 0..ROWS-1.
  for (let start = 0; start < ROWS; start += 500) {
    const rows = Array.from({ length: 500 }, (_, k) => {
      const i = start + k;
      return { row_id: randomUUID(), user_id: null, created_at: '2026-11-27T00:00:00.000Z', updated_at: '2026-11-27T00:00:00.000Z', size_bytes: 0, [columnIdent(column.tenth)]: i % 10, [columnIdent(column.rare)]: i % 500, [columnIdent(column.rank)]: (i * 7919) % ROWS };
    });
    await deps.db.insertInto(tableIdent(tableId) as any).values(rows).execute();
  }
}, 120_000);
afterAll(async () => {
  await close?.();
});

const eq = (name: keyof typeof column, value: number): Condition => ({ op: 'eq', field: { kind: 'column', columnId: column[name] }, value });
const byRank = (limit: number, after?: { value: unknown; rowId: string }): Segment => ({ sort: { kind: 'column', columnId: column.rank }, dir: 'asc', part: 'values', limit, after });
const ids = (rows: { row_id: string }[]) => rows.map((r) => r.row_id);
const unbounded = async (conditions: Condition[], segment: Segment) => ids(await executeCompiled(deps.db, segmentQuery(deps.store.dialect, tableId, conditions, undefined, segment)));
const bounded = async (conditions: Condition[], segment: Segment) => ids(await queryRows(deps.db, deps.store.dialect, tableId, conditions, undefined, segment, SMALL));

describe('10 queries at scale: a filter on one column, a sort on another', () => {
  it('a filter that keeps many rows is answered by walking the sort index, first page and cursor pages alike', async () => {
    // Ranks are a shuffle in which every tenth rank has tenth = 3: 10 rows in each 100 walked.
    const first = await bounded([eq('tenth', 3)], byRank(10));
    expect(first).toHaveLength(10);
    expect(first).toEqual(await unbounded([eq('tenth', 3)], byRank(10)));
    const rows = await executeCompiled(deps.db, segmentQuery(deps.store.dialect, tableId, [eq('tenth', 3)], undefined, byRank(10)));
    const last = rows[8]!;
    const after = { value: last[columnIdent(column.rank)], rowId: last.row_id };
    expect(await bounded([eq('tenth', 3)], byRank(10, after))).toEqual(await unbounded([eq('tenth', 3)], byRank(10, after)));
  });

  it('a filter that keeps few rows is answered through its own index, exactly', async () => {
    const page = await bounded([eq('rare', 7)], byRank(4));
    expect(page).toHaveLength(4);
    expect(page).toEqual(await unbounded([eq('rare', 7)], byRank(4)));
    // The rest of its rows, up to the end of the table.
    const all = await unbounded([eq('rare', 7)], byRank(50));
    expect(await bounded([eq('rare', 7)], byRank(50))).toEqual(all);
    expect(all).toHaveLength(ROWS / 500);
  });

  it('a filter too sparse to walk and too broad to sort is QueryTooBroad', async () => {
    // tenth = 3 keeps 300 rows (more than 200 to sort) and, asked for 40, 20 in the first 200 walked.
    await expect(bounded([eq('tenth', 3)], byRank(40))).rejects.toBeInstanceOf(QueryTooBroad);
  });
});
