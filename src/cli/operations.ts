import type { Command } from 'commander';
import { createBlobStore } from '../blobs/index.js';
import { createLogger } from '../observability/logger.js';
import { backup, restore } from '../services/operations/backup.js';
import { runDoctor } from '../services/operations/doctor.js';
import { liveNodes, liveReleases } from '../services/nodes.js';
import { print, readConfig, withDeps } from './shared.js';

// `gatehouse backup DIR | restore DIR | doctor`: backups that restore, and the check that finds what a bad
// copy leaves (docs/operations.md, "Backups"); `gatehouse nodes list`: which node runs which release
// (docs/upgrading.md).

export function registerOperationsCommands(program: Command): void {
  program
    .command('backup <dir>')
    .description('SQLite: copy the live database (online backup API), then the blob of every object it names, into a new directory')
    .option('--json', 'print JSON')
    .action(async (dir: string, flags: { json?: boolean }) => {
      const config = readConfig();
      const blobs = createBlobStore(config.blobStore, { timeoutMs: config.blobTimeoutMs, log: createLogger('warn', process.stderr) });
      try {
        const report = await backup(config, blobs, dir);
        print(report, flags.json);
        if (report.missing_blobs.length) {
          process.stderr.write(`gatehouse: ${report.missing_blobs.length} object(s) had no blob: the backup is incomplete (did it take longer than BLOB_DELETION_GRACE_SECONDS?)\n`);
          process.exitCode = 1;
        }
      } finally {
        await blobs.close();
      }
    });

  program
    .command('restore <dir>')
    .description("SQLite: put a backup's blobs into the blob store and its database where DATABASE_URL names (which must hold none), then check them")
    .option('--json', 'print JSON')
    .action(async (dir: string, flags: { json?: boolean }) => {
      const config = readConfig();
      const blobs = createBlobStore(config.blobStore, { timeoutMs: config.blobTimeoutMs, log: createLogger('warn', process.stderr) });
      let restored;
      try {
        restored = await restore(config, blobs, dir);
      } finally {
        await blobs.close();
      }
      const doctor = await withDeps((deps) => runDoctor(deps));
      print({ ...restored, doctor }, flags.json);
      if (!doctor.ok) process.exitCode = 1;
    });

  program
    .command('doctor')
    .description('find object rows without blobs, blobs without rows and counters that differ from their sums, and say how to repair them')
    .option('--remove-orphan-blobs', 'delete the blobs no row names')
    .option('--json', 'print JSON')
    .action(async (flags: { removeOrphanBlobs?: boolean; json?: boolean }) => {
      const report = await withDeps((deps) => runDoctor(deps, { removeOrphanBlobs: flags.removeOrphanBlobs }));
      print(report, flags.json);
      if (!report.ok) process.exitCode = 1;
    });

  program
    .command('nodes')
    .description('the serve nodes of this database and their releases (docs/upgrading.md)')
    .command('list')
    .description('the live nodes (seen within three NODE_HEARTBEAT_SECONDS) and the releases they run, earliest first')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      const report = await withDeps(async (deps) => ({ releases: await liveReleases(deps), nodes: await liveNodes(deps) }));
      print(report, flags.json);
    });
}
