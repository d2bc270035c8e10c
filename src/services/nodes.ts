import { addSeconds, iso } from '../clock.js';
import type { Deps } from '../deps.js';
import { LogThrottle } from '../observability/log-throttle.js';
import { RELEASE } from '../release.js';
import { LATEST_MIGRATION } from '../store/migrations/index.js';
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
  startedAt: string;
}

export interface LiveNode {
  node_id: string;
  release: string;
  latest_migration: string;
  started_at: string;
  last_seen_at: string;
}

export interface LiveRelease {
  release: string;
  latest_migration: string;
  nodes: number;
}

/** Rows of nodes silent this long are removed by the next heartbeat of any node (they are long dead). */
const FORGET_AFTER_SECONDS = 86_400;

export function thisNode(deps: NodeDeps, self: Partial<ThisNode> = {}): ThisNode {
  return { nodeId: deps.nodeId, release: RELEASE.name, latestMigration: LATEST_MIGRATION, startedAt: iso(deps.clock.now()), ...self };
}

/** One heartbeat: writes the node's row with the current time, and forgets nodes silent for a day. */
export async function beat(deps: NodeDeps, self: ThisNode): Promise<void> {
  const now = deps.clock.now();
  await nodes.upsertNode(deps.db, { node_id: self.nodeId, release: self.release, latest_migration: self.latestMigration, started_at: self.startedAt, last_seen_at: iso(now) });
  await nodes.removeNodesSeenBefore(deps.db, iso(addSeconds(now, -FORGET_AFTER_SECONDS)));
}

/** The nodes seen within three heartbeats, oldest start first. */
export async function liveNodes(deps: Pick<NodeDeps, 'db' | 'clock' | 'config'>): Promise<LiveNode[]> {
  const since = iso(addSeconds(deps.clock.now(), -3 * deps.config.nodeHeartbeatSeconds));
  return nodes.listLiveNodes(deps.db, since);
}

/** The releases live nodes run, each with how many nodes run it, earliest release (by its newest migration) first. */
export async function liveReleases(deps: Pick<NodeDeps, 'db' | 'clock' | 'config'>): Promise<LiveRelease[]> {
  const byRelease = new Map<string, LiveRelease>();
  for (const node of await liveNodes(deps)) {
    const entry = byRelease.get(node.release) ?? { release: node.release, latest_migration: node.latest_migration, nodes: 0 };
    entry.nodes++;
    byRelease.set(node.release, entry);
  }
  return [...byRelease.values()].sort((a, b) => a.latest_migration.localeCompare(b.latest_migration) || a.release.localeCompare(b.release));
}

/**
 * Whether a live node runs a release earlier than this build (one that knows fewer migrations). Nodes of
 * releases before the release record (0049) write no row and cannot be seen: docs/upgrading.md says those
 * are never run beside this one.
 */
export async function earlierReleaseAlive(deps: Pick<NodeDeps, 'db' | 'clock' | 'config'>, latestMigration = LATEST_MIGRATION): Promise<boolean> {
  return (await liveReleases(deps)).some((release) => release.latest_migration < latestMigration);
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
