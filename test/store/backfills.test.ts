import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { iso, type Clock } from '../../src/clock.js';
import { backfillPass } from '../../src/services/backfills.js';
import { beat, thisNode } from '../../src/services/nodes.js';
import { backfillInBatches } from '../../src/store/migrations/steps.js';
import { removeNode, upsertNode } from '../../src/store/repos/node-releases.js';
import { useInProcess } from '../helpers/in-process.js';

// Backfills after a schema change (issue 55, docs/upgrading.md "Migrations that do not stop traffic"), on the
// run's database: bounded batches, each committed on its own, so one cut halfway resumes where it stopped;
// and a backfill beside a node of an earlier release, which keeps writing rows the old way, is not done
// until no such node is alive. The table is the test's own: no migration of this release needs a backfill.
const now = new Date('2026-12-01T10:00:00.000Z');
const clock: Clock = { now: () => now };
const { deps } = useInProcess(clock);

async function probe(rows: number) {
  await deps.db.schema.dropTable('backfill_probe').ifExists().execute();
  await deps.db.schema.createTable('backfill_probe').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('n', 'integer', (c) => c.notNull()).addColumn('doubled', 'integer').execute();
  if (rows) await sql`insert into backfill_probe (id, n) select i, i from (${sql.raw(Array.from({ length: rows }, (_, i) => `select ${i + 1} as i`).join(' union all '))}) s`.execute(deps.db);
}
const unfilled = async () => Number((await sql<{ n: number }>`select count(*) as n from backfill_probe where doubled is null`.execute(deps.db)).rows[0]!.n);
// One batch: one UPDATE of at most `limit` rows that still need it (the resumable shape steps.ts asks for).
const batch = async (limit: number) =>
  Number((await sql`update backfill_probe set doubled = n * 2 where id in (select id from backfill_probe where doubled is null order by id limit ${limit})`.execute(deps.db)).numAffectedRows);

describe('store: backfills in bounded resumable batches', () => {
  it('a backfill cut after its first batch keeps that batch and resumes from the next row', async () => {
    await probe(25);
    const sizes: number[] = [];
    let calls = 0;
    const cut = async (limit: number) => {
      if (++calls === 2) throw new Error('the node stopped');
      const changed = await batch(limit);
      sizes.push(changed);
      return changed;
    };
    await expect(backfillInBatches(cut, { size: 10, restRatio: 0 })).rejects.toThrow('the node stopped');
    expect(await unfilled()).toBe(15);
    expect(await backfillInBatches(cut, { size: 10, restRatio: 0 })).toBe(15);
    expect(sizes).toEqual([10, 10, 5]);
    expect(await unfilled()).toBe(0);
    const wrong = await sql`select count(*) as n from backfill_probe where doubled <> n * 2`.execute(deps.db);
    expect(Number((wrong.rows[0] as { n: number }).n)).toBe(0);
    // Run again when nothing is left: one batch that changes nothing.
    expect(await backfillInBatches(batch, { size: 10, restRatio: 0 })).toBe(0);
  });

  it('beside a live node of an earlier release the backfill is not done, and the next pass takes the rows it wrote meanwhile', async () => {
    await probe(12);
    await beat(deps, thisNode(deps, { nodeId: 'this-node' }));
    // A node of aad39b5 (before 0050: no list of the migrations it knows), seen now.
    await upsertNode(deps.db, { node_id: 'aad39b5-node', release: '0.1.0+aad39b54a978', latest_migration: '0049-node-releases', known_migrations: null, started_at: iso(now), last_seen_at: iso(now) });
    expect(await backfillPass(deps, batch, { size: 5, restRatio: 0 })).toEqual({ changed: 12, done: false });
    // The earlier node writes a row the old way: it knows nothing of the new column.
    await sql`insert into backfill_probe (id, n) values (13, 13)`.execute(deps.db);
    expect(await unfilled()).toBe(1);
    await removeNode(deps.db, 'aad39b5-node');
    expect(await backfillPass(deps, batch, { size: 5, restRatio: 0 })).toEqual({ changed: 1, done: true });
    expect(await unfilled()).toBe(0);
    await removeNode(deps.db, 'this-node');
    await deps.db.schema.dropTable('backfill_probe').execute();
  });
});
