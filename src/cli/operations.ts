import type { Command } from 'commander';
import { createBlobStore } from '../blobs/index.js';
import type { BlobStore } from '../blobs/store.js';
import type { Config } from '../config/index.js';
import { createLogger } from '../observability/logger.js';
import { backup, restore } from '../services/operations/backup.js';
import { runDoctor } from '../services/operations/doctor.js';
import { liveNodes, liveReleases } from '../services/nodes.js';
import { pathOf, type Cli } from './io.js';
import { print, readConfig, withDeps } from './shared.js';

// `gatehouse backup DIR | restore DIR | doctor`: backups that restore, and the check that finds what a bad
// copy leaves (docs/operations.md, "Backups"); `gatehouse nodes list`: which node runs which release
// (docs/upgrading.md).

/** Runs `work` with the configuration and its blob store, closed after. */
async function withBlobStore<T>(cli: Cli, work: (config: Config, blobs: BlobStore) => Promise<T>): Promise<T> {
  const config = readConfig(cli);
  const blobs = createBlobStore(config.blobStore, { timeoutMs: config.blobTimeoutMs, log: createLogger('warn', cli.stderr as NodeJS.WritableStream) });
  try {
    return await work(config, blobs);
  } finally {
    await blobs.close();
  }
}

export function registerOperationsCommands(program: Command, cli: Cli): void {
  program
    .command('backup <dir>')
    .description('SQLite: copy the live database (online backup API), then the blob of every object it names, into a new directory')
    .option('--json', 'print JSON')
    .action((dir: string, flags: { json?: boolean }) =>
      withBlobStore(cli, async (config, blobs) => {
        const report = await backup(config, blobs, pathOf(cli, dir));
        print(cli, report, flags.json);
        if (report.missing_blobs.length) {
          cli.stderr.write(`gatehouse: ${report.missing_blobs.length} object(s) had no blob: the backup is incomplete (did it take longer than BLOB_DELETION_GRACE_SECONDS?)\n`);
          cli.exitCode = 1;
        }
      }),
    );

  program
    .command('restore <dir>')
    .description("SQLite: put a backup's blobs into the blob store and its database where DATABASE_URL names (which must hold none), then check them")
    .option('--json', 'print JSON')
    .action(async (dir: string, flags: { json?: boolean }) => {
      const restored = await withBlobStore(cli, (config, blobs) => restore(config, blobs, pathOf(cli, dir)));
      const doctor = await withDeps(cli, (deps) => runDoctor(deps));
      print(cli, { ...restored, doctor }, flags.json);
      if (!doctor.ok) cli.exitCode = 1;
    });

  program
    .command('doctor')
    .description('find object rows without blobs, blobs without rows and counters that differ from their sums, and say how to repair them')
    .option('--remove-orphan-blobs', 'delete the blobs no row names')
    .option('--json', 'print JSON')
    .action(async (flags: { removeOrphanBlobs?: boolean; json?: boolean }) => {
      const report = await withDeps(cli, (deps) => runDoctor(deps, { removeOrphanBlobs: flags.removeOrphanBlobs }));
      print(cli, report, flags.json);
      if (!report.ok) cli.exitCode = 1;
    });

  program
    .command('nodes')
    .description('the serve nodes of this database and their releases (docs/upgrading.md)')
    .command('list')
    .description('the live nodes (seen within three NODE_HEARTBEAT_SECONDS) and the releases they run, earliest first')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      const report = await withDeps(cli, async (deps) => ({ releases: await liveReleases(deps), nodes: await liveNodes(deps) }));
      print(cli, report, flags.json);
    });
}
