import type { Command } from 'commander';
import { OWN_BATCH_BYTES, SHARED_BATCH_BYTES } from '../observability/batched-stdout.js';
import { createLogger } from '../observability/logger.js';
import { pruneExpiredRows } from '../services/maintenance.js';
import { rotateMasterKey } from '../services/apps/master-key.js';
import type { Cli } from './io.js';
import { print, readConfig, UsageError, withDeps } from './shared.js';

// `gatehouse serve | migrate | prune | master-key rotate`: running the service and keeping its database.

export function registerServerCommands(program: Command, cli: Cli): void {
  program
    .command('serve')
    .description('run the HTTP service (applies pending migrations first)')
    .option('--workers <n|auto>', 'processes accepting on the port (auto: one per core; more than 1 needs REDIS_URL)', '1')
    .action(async (flags: { workers: string }) => {
      // It listens and may fork workers: a process of its own, never a run inside another program's.
      if (!cli.ownProcess) throw new UsageError('serve runs only as its own process (bin/gatehouse.js)');
      const { serveLogDestination } = await import('../observability/log-pretty.js');
      const config = readConfig(cli, { serve: true });
      // One process writes standard output alone; workers share it, in writes that never interleave.
      const workersFlag = flags.workers;
      const batchBytes = workersFlag === '1' ? OWN_BATCH_BYTES : SHARED_BATCH_BYTES;
      const log = createLogger(config.logLevel, serveLogDestination(config.database), batchBytes);
      // Traces (OTEL_* variables) start before the HTTP server, pg and ioredis load, so their
      // instrumentations patch them; off, nothing of OpenTelemetry is loaded (observability/tracing.ts).
      const { startTracing, tracingWanted } = await import('../observability/tracing.js');
      if (tracingWanted(process.env)) await startTracing(process.env, log);
      // The HTTP service (Fastify, every route, the OpenAPI document) loads only for serve: every other
      // command starts in a fraction of the time.
      const { MAX_WORKERS, parseWorkers, serveWorkers } = await import('../runtime/cluster.js');
      const workers = parseWorkers(flags.workers);
      if (workers === undefined) throw new UsageError(`--workers must be auto or a whole number from 1 to ${MAX_WORKERS}`);
      await serveWorkers(config, log, workers);
    });

  program
    .command('migrate')
    .description('apply pending migrations and exit')
    .action(async () => {
      const applied = await withDeps(cli, async (_deps, migrated) => migrated, { createDatabase: true });
      cli.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    });

  program
    .command('prune')
    .description('delete dead single-use rows now (the server also does it every 10 minutes, one node at a time)')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      print(cli, await withDeps(cli, (deps) => pruneExpiredRows(deps)), flags.json);
    });

  const masterKey = program.command('master-key').description('manage the master key that seals secrets at rest');
  masterKey
    .command('rotate')
    .description('re-seal every sealed secret under MASTER_KEY, opening old ones with MASTER_KEY_PREVIOUS (resumable)')
    .option('--batch-size <n>', 'rows per batch', '100')
    .option('--json', 'print JSON')
    .action(async (flags: { batchSize: string; json?: boolean }) => {
      const batchSize = Number(flags.batchSize);
      if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new UsageError('--batch-size must be a whole number from 1 to 10000');
      print(cli, await withDeps(cli, (deps) => rotateMasterKey(deps, { batchSize })), flags.json);
    });
}
