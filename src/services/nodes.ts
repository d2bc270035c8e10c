import { addSeconds, iso } from '../clock.js';
import type { Deps } from '../deps.js';
import { LogThrottle } from '../observability/log-throttle.js';
import { RELEASE } from '../release.js';
import { KNOWN_MIGRATIONS, LATEST_MIGRATION } from '../store/migrations/index.js';
import * as nodes from '../store/repos/node-releases.js';
import { runEvery } from './schedule.js';

// The release record of a mixed fleet (issue 55; docs/upgrading.md): every `serve` process keeps a row
// naming its release and a heartbeat. A node is live while it was seen within three heartbeats. Behaviour
// that an earlier release would undo asks earlierReleaseAlive() and waits while it answers true.

type NodeDeps = Pick<Deps, 'db' | 'clock' | 'nodeId' | 'log' | 'config'>;

/** What a node knows of itself: the row it writes. */
export interface ThisNode {
  nodeId: string;
  release: string;
  latestMigration: string;
  /** Every migration its build knows (written from migration 0050 on). */
  knownMigrations: string[];
  startedAt: string;
}

export interface LiveNode {
  node_id: string;
  release: string;
  latest_migration: string;
  /** How many migrations its build knows; null: a release before 0050, which does not say. */
  known_migrations: number | null;
  started_at: string;
  last_seen_at: string;
}

export interface LiveRelease {
  release: string;
  latest_migration: string;
  known_migrations: number | null;
  nodes: number;
}

/** Rows of nodes silent this long are removed by the next heartbeat of any node (they are long dead). */
const FORGET_AFTER_SECONDS = 86_400;

export function thisNode(deps: NodeDeps, self: Partial<ThisNode> = {}): ThisNode {
  return { nodeId: deps.nodeId, release: RELEASE.name, latestMigration: LATEST_MIGRATION, knownMigrations: KNOWN_MIGRATIONS, startedAt: iso(deps.clock.now()), ...self };
}

/** One heartbeat: writes the node's row with the current time, and forgets nodes silent for a day. */
export async function beat(deps: NodeDeps, self: ThisNode): Promise<void> {
  const now = deps.clock.now();
  const known = JSON.stringify(self.knownMigrations);
  await nodes.upsertNode(deps.db, { node_id: self.nodeId, release: self.release, latest_migration: self.latestMigration, known_migrations: known, started_at: self.startedAt, last_seen_at: iso(now) });
  await nodes.removeNodesSeenBefore(deps.db, iso(addSeconds(now, -FORGET_AFTER_SECONDS)));
}

/** The rows of the nodes seen within three heartbeats, oldest start first. */
async function liveRows(deps: Pick<NodeDeps, 'db' | 'clock' | 'config'>): Promise<nodes.NodeRelease[]> {
  return nodes.listLiveNodes(deps.db, iso(addSeconds(deps.clock.now(), -3 * deps.config.nodeHeartbeatSeconds)));
}

const knownOf = (row: nodes.NodeRelease): string[] | null => (row.known_migrations === null ? null : (JSON.parse(row.known_migrations) as string[]));

/** The nodes seen within three heartbeats, oldest start first. */
export async function liveNodes(deps: Pick<NodeDeps, 'db' | 'clock' | 'config'>): Promise<LiveNode[]> {
  return (await liveRows(deps)).map((row) => ({ ...row, known_migrations: knownOf(row)?.length ?? null }));
}

/**
 * Whether a release that knows `theirs` (null: one before 0050, which does not say, whose newest migration is
 * `theirLatest`) is earlier than a build that knows `ours`: it does not know a migration this one knows.
 */
function isEarlier(theirs: string[] | null, theirLatest: string, ours: readonly string[]): boolean {
  if (theirs) return ours.some((name) => !theirs.includes(name));
  return ours.some((name) => name > theirLatest || name === '0050-known-migrations');
}

/**
 * The releases live nodes run, each with how many nodes run it, earliest first: those before 0050 (by their
 * newest migration), then by how many migrations each knows (of two releases of a pair, the later knows
 * every migration the earlier knows, and more).
 */
export async function liveReleases(deps: Pick<NodeDeps, 'db' | 'clock' | 'config'>): Promise<LiveRelease[]> {
  const byRelease = new Map<string, LiveRelease>();
  for (const node of await liveNodes(deps)) {
    const entry = byRelease.get(node.release) ?? { release: node.release, latest_migration: node.latest_migration, known_migrations: node.known_migrations, nodes: 0 };
    entry.nodes++;
    byRelease.set(node.release, entry);
  }
  const rank = (r: LiveRelease) => r.known_migrations ?? -1;
  return [...byRelease.values()].sort((a, b) => rank(a) - rank(b) || a.latest_migration.localeCompare(b.latest_migration) || a.release.localeCompare(b.release));
}

/**
 * Whether a live node runs a release earlier than this build: one that does not know a migration this
 * build knows (`known`: another build's list, for tests). Nodes of releases before the release record
 * (0049) write no row and cannot be seen: docs/upgrading.md says those are never run beside this one.
 */
export async function earlierReleaseAlive(deps: Pick<NodeDeps, 'db' | 'clock' | 'config'>, known: readonly string[] = KNOWN_MIGRATIONS): Promise<boolean> {
  return (await liveRows(deps)).some((row) => isEarlier(knownOf(row), row.latest_migration, known));
}

/**
 * Writes the node's row now, then every NODE_HEARTBEAT_SECONDS; the returned stop ends the beats and
 * removes the row (a graceful shutdown: the node is not alive for anyone who asks from then on).
 */
export async function startNodeHeartbeat(deps: NodeDeps): Promise<() => Promise<void>> {
  const self = thisNode(deps);
  const failures = new LogThrottle(60_000);
  const once = async () => {
    try {
      await beat(deps, self);
    } catch (error) {
      const suppressed = failures.admit('node_heartbeat');
      if (suppressed !== undefined) deps.log.warn({ code: 'node_heartbeat_failed', error: (error as Error).message, suppressed }, 'could not record this node in node_releases; retrying');
    }
  };
  await once();
  const everyMs = deps.config.nodeHeartbeatSeconds * 1000;
  const stop = runEvery(once, everyMs, everyMs);
  return async () => {
    stop();
    await nodes.removeNode(deps.db, self.nodeId).catch(() => {});
  };
}
