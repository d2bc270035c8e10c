import type { Command } from 'commander';
import type { Deps } from '../deps.js';
import { purgeUntilGone, type DeletionMark } from '../services/apps/deletion.js';
import { UsageError, wholeNumber } from './shared.js';
import type { Cli } from './io.js';

// What `app delete` and `tenant delete` share: the confirmation, then mark and purge to the end.

export interface DeleteFlags {
  yes?: boolean;
  batchSize?: number;
  json?: boolean;
}

/** The flags both commands take: the confirmation, the purge's batch size, --json. */
export function deleteOptions(command: Command): Command {
  return command
    .option('--yes', 'confirm: this cannot be undone')
    .option('--batch-size <n>', 'rows a statement removes (default APP_PURGE_BATCH_SIZE, 500)', wholeNumber)
    .option('--json', 'print JSON');
}

export function requireYes(flags: DeleteFlags, command: string): void {
  if (!flags.yes) throw new UsageError(`this deletes everything of it and cannot be undone; run again with --yes: ${command}`);
}

/**
 * Marks (every route refuses the apps from now on), then runs the purge until the apps are gone, with a
 * progress line per batch on stderr. Killed midway, the same command (or a server's purge job) goes on.
 */
export async function deleteAndPurge(cli: Cli, deps: Deps, mark: () => Promise<DeletionMark>, flags: DeleteFlags) {
  if (flags.batchSize !== undefined && (flags.batchSize < 1 || flags.batchSize > 10_000)) throw new UsageError('--batch-size must be from 1 to 10000');
  const marked = await mark();
  cli.stderr.write(`marked deleted: ${marked.app_ids.join(', ') || 'no apps'}; removing their data\n`);
  const result = await purgeUntilGone(deps, marked.app_ids, {
    batchSize: flags.batchSize,
    onProgress: (appId, step, total) => cli.stderr.write(`${appId} ${step} ${total}\n`),
  });
  return { status: 'deleted' as const, deleted_at: marked.deleted_at, apps: result.apps };
}
