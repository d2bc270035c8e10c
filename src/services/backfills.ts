import type { Deps } from '../deps.js';
import { backfillInBatches, type BackfillOptions } from '../store/migrations/steps.js';
import { earlierReleaseAlive } from './nodes.js';

// A backfill beside an earlier release (issue 55; docs/upgrading.md, "Migrations that do not stop traffic"):
// after a schema change that an earlier release does not know (a new column, say), nodes of that release
// keep writing rows the old way while they serve, which undoes a backfill that believed itself finished.
// So a pass fills what it finds in bounded batches (store/migrations/steps.ts), and the backfill is done
// only after a pass that started when no node of an earlier release was alive; until then its caller runs
// it again (the next start, the next maintenance run), and what reads the new form keeps its fallback.

export interface BackfillPass {
  /** Rows this pass changed. */
  changed: number;
  /** True when no node of an earlier release was alive as the pass started: no row of the old form is left. */
  done: boolean;
}

export async function backfillPass(deps: Pick<Deps, 'db' | 'clock' | 'config'>, batch: (limit: number) => Promise<number>, options: BackfillOptions = {}): Promise<BackfillPass> {
  const earlier = await earlierReleaseAlive(deps);
  const changed = await backfillInBatches(batch, options);
  return { changed, done: !earlier };
}
