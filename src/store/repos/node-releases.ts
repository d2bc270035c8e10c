import type { Db } from '../db.js';
import type { NodeReleasesTable } from '../schema/index.js';

export type NodeRelease = NodeReleasesTable;

/**
 * Records the node's release and heartbeat: the first call inserts its row, every later one moves
 * `last_seen_at` (and puts the row back if another node's clean-up, or a restore, removed it).
 */
export async function upsertNode(db: Db, node: NodeRelease): Promise<void> {
  await db
    .insertInto('node_releases')
    .values(node)
    .onConflict((oc) => oc.column('node_id').doUpdateSet({ release: node.release, latest_migration: node.latest_migration, known_migrations: node.known_migrations, last_seen_at: node.last_seen_at }))
    .execute();
}

/** Removes the node's row (a graceful shutdown): it is no longer alive for anyone who asks. */
export async function removeNode(db: Db, nodeId: string): Promise<void> {
  await db.deleteFrom('node_releases').where('node_id', '=', nodeId).execute();
}

/** The nodes seen at or after `seenSince`, oldest start first. */
export async function listLiveNodes(db: Db, seenSince: string): Promise<NodeRelease[]> {
  return db.selectFrom('node_releases').selectAll().where('last_seen_at', '>=', seenSince).orderBy('started_at').orderBy('node_id').execute();
}

/** Removes the rows of nodes last seen before `before` (crashed long ago); returns how many. */
export async function removeNodesSeenBefore(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('node_releases').where('last_seen_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
