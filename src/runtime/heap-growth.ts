import { setFlagsFromString } from 'node:v8';
import { namesNodeFlag } from './node-flags.js';

/**
 * How far V8 lets the old generation grow past what survived its last full collection before it
 * collects again: 20 %. V8's own factor goes up to 4 when a program allocates fast, and a server under
 * load allocates fast and keeps little, so its heap filled with tens of MB of garbage between full
 * collections: RSS peaks of 140-190 MB under `GET /v1/me` on PostgreSQL, against 115-121 MB with 20 %,
 * at the same throughput (bench/README.md, 2026-11-26 11:21 UTC). Read by V8 at every full collection,
 * so setting it at start is enough.
 */
export const HEAP_GROWING_FLAG = '--heap-growing-percent=20';

/** The flag to set in this process: HEAP_GROWING_FLAG, unless node's flags or NODE_OPTIONS name a factor already. */
export function heapGrowingFlag(execArgv: readonly string[], nodeOptions = ''): string | undefined {
  return namesNodeFlag(execArgv, nodeOptions, 'heap-growing-percent') ? undefined : HEAP_GROWING_FLAG;
}

/** Sets the heap's growing factor for a server process (every worker sets its own). */
export function boundHeapGrowth(): void {
  const flag = heapGrowingFlag(process.execArgv, process.env.NODE_OPTIONS);
  if (flag) setFlagsFromString(flag);
}
