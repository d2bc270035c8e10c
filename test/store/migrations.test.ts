import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import * as m0046 from '../../src/store/migrations/0046-event-methods.js';
import { appliedMigrations, migrateToLatest } from '../../src/store/migrations/index.js';
import { TEST_DB } from '../helpers/db.js';
import { useInProcess } from '../helpers/in-process.js';

// Migrations on a database that serves (issue 55, docs/operations.md "Migrations"): each pending migration
// commits in a transaction of its own, so one that fails leaves those before it applied and itself not at all.
const clock: Clock = { now: () => new Date('2026-12-01T10:00:00.000Z') };
const { deps } = useInProcess(clock);

describe('store: migrations of a serving database, one transaction each', () => {
  it('0046 pending and committed, then 0049 failing: 0046 stays applied, 0049 left nothing, and the next run applies it (and 0050 after it)', async () => {
    // The database as a release before 0046 and 0049 left it, except that a table has the name of 0049's index.
    await m0046.down(deps.db);
    await deps.db.schema.dropTable('node_releases').execute();
    await deps.db.schema.createTable('node_releases_seen').addColumn('x', 'integer').execute();
    await deps.db.deleteFrom('kysely_migration' as never).where('name' as never, 'in', ['0046-event-methods', '0049-node-releases', '0050-known-migrations'] as never).execute();

    await expect(migrateToLatest(deps.db)).rejects.toThrow(/^migration 0049-node-releases failed, so it was not applied \(the schema is as it found it\) \(applied before it: 0046-event-methods\): /);
    expect(await appliedMigrations(deps.db)).toContain('0046-event-methods');
    expect(await appliedMigrations(deps.db)).not.toContain('0049-node-releases');
    // 0046's column is there (committed); 0049's first table is not (rolled back when its later step failed).
    await deps.db.selectFrom('mfa_challenges').select('method').limit(1).execute();
    await expect(sql`select node_id from node_releases`.execute(deps.db)).rejects.toThrow();

    await deps.db.schema.dropTable('node_releases_seen').execute();
    expect(await migrateToLatest(deps.db)).toEqual(['0049-node-releases', '0050-known-migrations']);
    expect(await migrateToLatest(deps.db)).toEqual([]);
  });
});

describe.skipIf(TEST_DB !== 'postgres')('store: an index built CONCURRENTLY outside a transaction (0048 on PostgreSQL)', () => {
  const client = async () => {
    const c = new pg.Client({ connectionString: (deps.config.database as { url: string }).url });
    await c.connect();
    return c;
  };
  const indexState = async () => (await sql<{ valid: boolean; unique: boolean }>`select i.indisvalid as valid, i.indisunique as unique from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = 'event_counts_day'`.execute(deps.db)).rows;

  it('a failed build left the index invalid: the next run drops it and builds it while writes to event_counts go on', async () => {
    const row = (slot: string) => `insert into event_counts (scope_id, day, type, slot, count) values ('s', '2026-12-01', 't', '${slot}', 1)`;
    const open = await client();
    const writer = await client();
    try {
      // 0048 as a build cut halfway left it: not recorded, an invalid index of its name (a unique build that failed).
      await deps.db.schema.dropIndex('event_counts_day').execute();
      await deps.db.deleteFrom('kysely_migration' as never).where('name' as never, '=', '0048-event-retention' as never).execute();
      await sql.raw(`${row('a')}; ${row('b')}`).execute(deps.db);
      await expect(sql`create unique index concurrently event_counts_day on event_counts (day)`.execute(deps.db)).rejects.toThrow();
      expect(await indexState()).toEqual([{ valid: false, unique: true }]);

      // A transaction that wrote to event_counts stays open: CONCURRENTLY waits for it to end, but does not
      // stop another writer meanwhile (a plain CREATE INDEX would queue its SHARE lock, and the writer behind it).
      await open.query('begin');
      await open.query(row('c'));
      const migrating = migrateToLatest(deps.db);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await writer.query("set statement_timeout = '2s'");
      await writer.query(row('d'));
      await open.query('commit');
      expect(await migrating).toEqual(['0048-event-retention']);
      expect(await indexState()).toEqual([{ valid: true, unique: false }]);
    } finally {
      await open.end();
      await writer.end();
      await deps.db.deleteFrom('event_counts').where('scope_id', '=', 's').execute();
    }
  });
});
