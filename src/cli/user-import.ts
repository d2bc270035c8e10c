import { createReadStream, readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import type { Deps } from '../deps.js';
import { notFound } from '../errors.js';
import { FORMATS, parseHashConfig, readUsers, type FirebaseHashConfig, type ImportFormat, type ReadUser } from '../import-formats/index.js';
import { IMPORT_MAX, importUsers, type OnConflict } from '../services/accounts/user-import.js';
import { OPERATOR_CONTEXT } from '../services/events/index.js';
import { findApplication } from '../store/repos/applications.js';
import { pathOf, type Cli } from './io.js';
import { UsageError, withDeps } from './shared.js';

// `gatehouse user import APP FILE --format ...` (docs/import.md): the vendor's export read as a stream
// (src/import-formats), sent in batches of IMPORT_MAX through the service of POST /v1/users/import. Only one
// batch is held at a time; a progress line on stderr when it is a terminal; --json prints the totals.

/** Failures listed in the summary at most (the totals count all of them). */
const LISTED_FAILURES = 100;

interface ImportFlags {
  format: string;
  hashConfig?: string;
  onConflict: string;
  json?: boolean;
}

interface Totals {
  created: number;
  skipped: number;
  failed: number;
  failures: { index: number; detail: string; code: string | null }[];
}

/** The file as text chunks, counting its bytes for the progress line. */
async function* fileChunks(path: string, progress: { bytes: number }): AsyncGenerator<string> {
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 })) {
    progress.bytes += Buffer.byteLength(chunk as string);
    yield chunk as string;
  }
}

function progressLine(cli: Cli, totals: Totals, bytes: number, size: number): void {
  const share = size === 0 ? 1 : Math.min(1, bytes / size);
  const bar = '#'.repeat(Math.round(share * 30)).padEnd(30, '.');
  cli.stderr.write(`\r[${bar}] ${(share * 100).toFixed(0).padStart(3)}%  created ${totals.created}, skipped ${totals.skipped}, failed ${totals.failed}`);
}

async function runImport(cli: Cli, deps: Deps, appId: string, file: string, format: ImportFormat, hashConfig: FirebaseHashConfig | undefined, onConflict: OnConflict): Promise<Totals> {
  const app = await findApplication(deps.db, appId);
  if (!app) throw notFound('application not found');
  const size = statSync(file).size;
  const progress = { bytes: 0 };
  const tty = cli.stderr.isTTY === true;
  const totals: Totals = { created: 0, skipped: 0, failed: 0, failures: [] };
  const fail = (index: number, detail: string, code: string | null) => {
    totals.failed++;
    if (totals.failures.length < LISTED_FAILURES) totals.failures.push({ index, detail, code });
  };
  let batch: { index: number; read: ReadUser }[] = [];
  let index = 0;
  const send = async () => {
    const users = batch.filter((entry) => 'user' in entry.read);
    for (const entry of batch) if ('error' in entry.read) fail(entry.index, entry.read.error, 'validation_failed');
    if (users.length > 0) {
      const answer = await importUsers(deps, app, { users: users.map((entry) => (entry.read as { user: unknown }).user), on_conflict: onConflict }, OPERATOR_CONTEXT);
      totals.created += answer.created;
      totals.skipped += answer.skipped;
      answer.results.forEach((result, i) => {
        if (result.status === 'error') fail(users[i]!.index, result.detail ?? '', result.code);
      });
    }
    batch = [];
    if (tty) progressLine(cli, totals, progress.bytes, size);
  };
  for await (const read of readUsers(fileChunks(file, progress), format, { hashConfig })) {
    batch.push({ index: index++, read });
    if (batch.length === IMPORT_MAX) await send();
  }
  if (batch.length > 0) await send();
  if (tty) cli.stderr.write('\n');
  return totals;
}

export function registerImportCommand(user: Command, cli: Cli): void {
  user
    .command('import')
    .argument('<app_id>')
    .argument('<file>', "the export file, as the vendor wrote it")
    .description('import the users of an export file with their password hashes, as POST /v1/users/import in batches of 1,000 (docs/import.md)')
    .requiredOption('--format <format>', FORMATS.join('|'))
    .option('--hash-config <file>', "Firebase: the project's password hash parameters, as its console shows them or as JSON")
    .option('--on-conflict <mode>', 'skip: a user the app has already is skipped (a repeated run changes nothing); error (default): it fails', 'error')
    .option('--json', 'print the totals as one JSON document')
    .action(async (appId: string, given: string, flags: ImportFlags) => {
      const file = pathOf(cli, given);
      if (!(FORMATS as readonly string[]).includes(flags.format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
      if (flags.onConflict !== 'skip' && flags.onConflict !== 'error') throw new UsageError('--on-conflict must be skip or error');
      if (flags.hashConfig !== undefined && flags.format !== 'firebase') throw new UsageError('--hash-config is for --format firebase');
      let hashConfig: FirebaseHashConfig | undefined;
      try {
        statSync(file);
        hashConfig = flags.hashConfig === undefined ? undefined : parseHashConfig(readFileSync(pathOf(cli, flags.hashConfig), 'utf8'));
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      const totals = await withDeps(cli, (deps) => runImport(cli, deps, appId, file, flags.format as ImportFormat, hashConfig, flags.onConflict as OnConflict));
      if (flags.json) cli.stdout.write(JSON.stringify(totals) + '\n');
      else {
        cli.stdout.write(`created ${totals.created}, skipped ${totals.skipped}, failed ${totals.failed}\n`);
        for (const failure of totals.failures) cli.stdout.write(`  user ${failure.index}: ${failure.detail}\n`);
      }
      // Some users failed: the others are in; the summary says which (by their place in the file).
      if (totals.failed > 0) cli.exitCode = 1;
    });
}
