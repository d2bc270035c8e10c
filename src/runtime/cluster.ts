import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { ConfigError, type Config } from '../config/index.js';
import { createDeps } from '../deps.js';
import type { Logger } from '../observability/logger.js';
import { serve } from '../main.js';
import { namesNodeFlag } from './node-flags.js';
import { checkMasterKey } from '../services/apps/master-key-check.js';
import { migrateToLatest } from '../store/migrations/index.js';
import { prepareConsole } from './console-setup.js';

export const MAX_WORKERS = 64;

/**
 * V8's young generation for a server process: semi-spaces of at most 8 MB instead of 16. Under load the
 * server then holds about 140 MB instead of 160-200 MB, at the same throughput (bench/README.md, "Memory
 * under load"). `npm start` runs node with it, workers get it, and the bench's server too; an operator
 * who sets the size (node's flags or NODE_OPTIONS) keeps theirs.
 */
export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=8';

/** The node flags of a worker: the primary's, with YOUNG_GENERATION_FLAG unless a size is set already. */
export function workerExecArgv(execArgv: readonly string[], nodeOptions = ''): string[] {
  return namesNodeFlag(execArgv, nodeOptions, 'max-semi-space-size') ? [...execArgv] : [...execArgv, YOUNG_GENERATION_FLAG];
}

/**
 * A worker's thread pool when bin/gatehouse.js chose the size (the operator set no UV_THREADPOOL_SIZE):
 * the cores shared out among the workers, 2 to 4 threads each, so that `--workers auto` hashes about
 * one password per core at once rather than one per core in every worker.
 */
export function workerThreadPool(cores: number, workers: number): number {
  return Math.min(4, Math.max(2, Math.floor(cores / workers)));
}

/** `--workers N|auto`: a whole number from 1 to 64, or `auto` for one process per core. */
export function parseWorkers(value: string): number | undefined {
  if (value === 'auto') return availableParallelism();
  if (!/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 1 && n <= MAX_WORKERS ? n : undefined;
}

/**
 * `gatehouse serve --workers N`: N processes (Node cluster) accepting on one port. Every worker is a
 * whole server (stateless: sessions, keys and limits live in the database and Redis). Rate limits are
 * the one thing a process would otherwise count alone, so more than one worker needs REDIS_URL, and
 * start-up refuses without it. The primary applies migrations and checks the master key once, forks, replaces a worker that dies,
 * and on SIGTERM/SIGINT passes the signal on and waits for every worker to finish its requests.
 */
export async function serveWorkers(config: Config, log: Logger, workers: number): Promise<void> {
  if (cluster.isWorker || workers === 1) return serve(config, log);
  if (!config.redisUrl) {
    throw new ConfigError(
      'REDIS_URL',
      `is required with --workers ${workers}: rate limits are counted in memory per process without it, so each worker would allow the whole limit again`,
    );
  }
  const deps = createDeps(config, log);
  try {
    const applied = await migrateToLatest(deps.db);
    if (applied.length) log.info({ migrations: applied }, 'migrations applied');
    // Refused here, a wrong key stops the whole server instead of every worker dying and being replaced.
    await checkMasterKey(deps);
    await prepareConsole(deps, true);
  } finally {
    await deps.close();
  }

  let stopping = false;
  cluster.setupPrimary({ execArgv: workerExecArgv(process.execArgv, process.env.NODE_OPTIONS) });
  // bin/gatehouse.js marks a pool size it chose itself (the operator set none); the workers then share the cores.
  const env = process.env.GATEHOUSE_DEFAULT_THREAD_POOL === '1' ? { UV_THREADPOOL_SIZE: String(workerThreadPool(availableParallelism(), workers)) } : undefined;
  const fork = (): Worker => cluster.fork(env);
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    log.error({ worker: worker.process.pid, code, signal }, 'worker exited; starting another');
    setTimeout(fork, 1_000).unref();
  });
  for (let i = 0; i < workers; i += 1) fork();
  log.info({ workers }, 'workers started');

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down workers');
    const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    if (!alive.length) process.exit(0);
    for (const worker of alive) worker.process.kill(signal);
    // Each worker drains and exits within SHUTDOWN_GRACE_SECONDS on its own; one that is still there a
    // second later is hung, and is killed so the whole server is gone within the grace the operator set.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.exit(1);
    }, config.shutdownGraceSeconds * 1000 + 1_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
