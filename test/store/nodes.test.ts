import { describe, expect, it } from 'vitest';
import { addSeconds, iso, type Clock } from '../../src/clock.js';
import { RELEASE } from '../../src/release.js';
import { beat, earlierReleaseAlive, liveNodes, liveReleases, startNodeHeartbeat, thisNode } from '../../src/services/nodes.js';
import { COMPATIBLE_MIGRATIONS, KNOWN_MIGRATIONS, LATEST_MIGRATION, migrateToLatest, MigrationError, recordedCompatible } from '../../src/store/migrations/index.js';
import { listLiveNodes, removeNode, removeNodesSeenBefore, upsertNode } from '../../src/store/repos/node-releases.js';
import { useInProcess } from '../helpers/in-process.js';

// The release record of a mixed fleet (issue 55, docs/upgrading.md), in process on the run's database with a
// moved clock: each node's row and heartbeat, who is live (seen within three NODE_HEARTBEAT_SECONDS), whether
// an earlier release is alive, a graceful stop removing the row; and the compatible migrations an earlier
// release may start beside.
let now = new Date('2026-12-01T10:00:00.000Z');
const clock: Clock = { now: () => now };
const move = (seconds: number) => (now = addSeconds(now, seconds));

const { deps } = useInProcess(clock, () => ({ NODE_HEARTBEAT_SECONDS: '10' }));

describe('store: node releases and heartbeats', () => {
  it('a node is live while seen within three heartbeats; its next beat makes it live again', async () => {
    const a = thisNode(deps, { nodeId: 'node-a' });
    await beat(deps, a);
    expect(await liveNodes(deps)).toEqual([{ node_id: 'node-a', release: RELEASE.name, latest_migration: LATEST_MIGRATION, known_migrations: KNOWN_MIGRATIONS.length, started_at: a.startedAt, last_seen_at: iso(now) }]);
    move(30);
    expect((await liveNodes(deps)).map((n) => n.node_id)).toEqual(['node-a']);
    move(1);
    expect(await liveNodes(deps)).toEqual([]);
    await beat(deps, a);
    const [row] = await liveNodes(deps);
    expect(row).toMatchObject({ node_id: 'node-a', started_at: a.startedAt, last_seen_at: iso(now) });
    await removeNode(deps.db, 'node-a');
    expect(await liveNodes(deps)).toEqual([]);
  });

  it('liveReleases groups the live nodes by release, earliest first; earlierReleaseAlive sees an earlier one only while it is live', async () => {
    await beat(deps, thisNode(deps, { nodeId: 'new-1' }));
    await beat(deps, thisNode(deps, { nodeId: 'new-2' }));
    expect(await earlierReleaseAlive(deps)).toBe(false);
    const old = thisNode(deps, { nodeId: 'old-1', release: '0.0.9+0123456789ab', latestMigration: '0049-node-releases', knownMigrations: KNOWN_MIGRATIONS.filter((m) => m !== '0048-event-retention') });
    await beat(deps, old);
    expect(await liveReleases(deps)).toEqual([
      { release: '0.0.9+0123456789ab', latest_migration: '0049-node-releases', known_migrations: KNOWN_MIGRATIONS.length - 1, nodes: 1 },
      { release: RELEASE.name, latest_migration: LATEST_MIGRATION, known_migrations: KNOWN_MIGRATIONS.length, nodes: 2 },
    ]);
    // It knows the newest migration but not 0048, which landed after it: earlier all the same.
    const sameNewest = thisNode(deps, { nodeId: 'old-1', release: '0.0.9+0123456789ab', latestMigration: LATEST_MIGRATION, knownMigrations: KNOWN_MIGRATIONS.filter((m) => m !== '0048-event-retention') });
    await beat(deps, sameNewest);
    expect(await earlierReleaseAlive(deps)).toBe(true);
    // The later release is not "earlier" for the old node.
    expect(await earlierReleaseAlive(deps, sameNewest.knownMigrations)).toBe(false);
    // The old node crashes (no more beats, no removal): three heartbeats later it is not alive.
    move(20);
    await beat(deps, thisNode(deps, { nodeId: 'new-1' }));
    await beat(deps, thisNode(deps, { nodeId: 'new-2' }));
    move(11);
    expect(await earlierReleaseAlive(deps)).toBe(false);
    expect((await liveReleases(deps)).map((r) => [r.release, r.nodes])).toEqual([[RELEASE.name, 2]]);
    await removeNode(deps.db, 'new-1');
    await removeNode(deps.db, 'new-2');
  });

  it('a node of a release before 0050 (no list of migrations, as aad39b5 writes) is earlier, and listed first', async () => {
    await beat(deps, thisNode(deps, { nodeId: 'new-1' }));
    await upsertNode(deps.db, { node_id: 'aad39b5-1', release: '0.1.0+aad39b54a978', latest_migration: '0049-node-releases', known_migrations: null, started_at: iso(now), last_seen_at: iso(now) });
    expect((await liveReleases(deps)).map((r) => [r.release, r.known_migrations])).toEqual([['0.1.0+aad39b54a978', null], [RELEASE.name, KNOWN_MIGRATIONS.length]]);
    expect(await earlierReleaseAlive(deps)).toBe(true);
    await removeNode(deps.db, 'aad39b5-1');
    expect(await earlierReleaseAlive(deps)).toBe(false);
    await removeNode(deps.db, 'new-1');
  });

  it('rows of nodes silent for a day are removed by any node\'s beat; removeNodesSeenBefore counts them', async () => {
    await upsertNode(deps.db, { node_id: 'ghost', release: 'x', latest_migration: '0001', known_migrations: null, started_at: iso(now), last_seen_at: iso(now) });
    move(86_401);
    await beat(deps, thisNode(deps, { nodeId: 'survivor' }));
    expect((await listLiveNodes(deps.db, '0000')).map((n) => n.node_id)).toEqual(['survivor']);
    expect(await removeNodesSeenBefore(deps.db, iso(addSeconds(now, 1)))).toBe(1);
    expect(await listLiveNodes(deps.db, '0000')).toEqual([]);
  });

  it('startNodeHeartbeat writes the row at once and its stop removes it (a graceful shutdown)', async () => {
    const stop = await startNodeHeartbeat(deps);
    expect((await liveNodes(deps)).map((n) => n.node_id)).toEqual([deps.nodeId]);
    await stop();
    expect(await liveNodes(deps)).toEqual([]);
  });
});

describe('store: compatible migrations', () => {
  it('0048, 0049 and 0050 are compatible and the database recorded them when they ran', async () => {
    expect(COMPATIBLE_MIGRATIONS).toEqual(['0048-event-retention', '0049-node-releases', '0050-known-migrations']);
    expect(await recordedCompatible(deps.db)).toEqual(expect.arrayContaining(COMPATIBLE_MIGRATIONS));
  });

  it('a database that applied 0048 before 0048 was marked compatible has it recorded at the next run', async () => {
    await deps.db.deleteFrom('migration_compatibility').where('name', '=', '0048-event-retention').execute();
    expect(await recordedCompatible(deps.db)).not.toContain('0048-event-retention');
    expect(await migrateToLatest(deps.db)).toEqual([]);
    expect(await recordedCompatible(deps.db)).toContain('0048-event-retention');
  });

  it('a later migration recorded compatible lets this build start; an unrecorded one stops it by name', async () => {
    const applied = (name: string) => deps.db.insertInto('kysely_migration' as never).values({ name, timestamp: iso(now) } as never).execute();
    try {
      await applied('9998-later-compatible');
      await deps.db.insertInto('migration_compatibility').values({ name: '9998-later-compatible', recorded_at: iso(now) }).execute();
      expect(await migrateToLatest(deps.db)).toEqual([]);
      await applied('9999-later-incompatible');
      await expect(migrateToLatest(deps.db)).rejects.toThrow(MigrationError);
      await expect(migrateToLatest(deps.db)).rejects.toThrow(`database is at migration 9999-later-incompatible, newer than this release (${LATEST_MIGRATION})`);
    } finally {
      await deps.db.deleteFrom('kysely_migration' as never).where('name' as never, 'in', ['9998-later-compatible', '9999-later-incompatible'] as never).execute();
      await deps.db.deleteFrom('migration_compatibility').where('name', '=', '9998-later-compatible').execute();
    }
  });
});
