import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig, type Config, type DatabaseConfig } from '../config/index.js';
import { createDeps, type Deps } from '../deps.js';
import { createLogger } from '../observability/logger.js';
import { checkMasterKey } from '../services/apps/master-key-check.js';
import { ensureConsoleApp } from '../services/management/console-app.js';
import { appliedMigrations, migrateToLatest } from '../store/migrations/index.js';
import { envOf, inDirectory, type Cli } from './io.js';

// What every command group shares: option parsers, printing, and the one way a command opens the database.

/** Exit codes: 0 done, 1 the operation failed, 2 bad usage or configuration. */
export class UsageError extends Error {}

function onOff(value: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new InvalidArgumentError('expected on or off');
}

/** A flag that takes on or off (`--passwords <on|off>`), parsed by onOff. */
export function onOffOption(flag: string, description: string): Option {
  return new Option(`${flag} <on|off>`, description).argParser(onOff);
}

export function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}

export function usd(value: string): number {
  if (!/^\d+(\.\d{1,2})?$/.test(value)) throw new InvalidArgumentError('expected a USD amount like 1 or 2.50');
  return Number(value);
}

/** A flag whose value is a JSON object (`--token-claims`, `--public-metadata`, ...); the service checks what is in it. */
export function jsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('expected a JSON object');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidArgumentError('expected a JSON object');
  return parsed as Record<string, unknown>;
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `--json`: one JSON line; otherwise one `key value` line per field. */
export function print(cli: Cli, value: object, json: boolean | undefined): void {
  if (json) {
    cli.stdout.write(JSON.stringify(value) + '\n');
    return;
  }
  for (const [key, field] of Object.entries(value)) {
    const text = (item: unknown) => (item !== null && typeof item === 'object' ? JSON.stringify(item) : String(item));
    const shown = Array.isArray(field) ? field.map(text).join(', ') : text(field);
    cli.stdout.write(`${key.padEnd(22)} ${shown}\n`);
  }
  if ('secret_key' in value) cli.stdout.write('\nThe secret key is shown once: store it now.\n');
}

/**
 * A command's usual end: runs `work` with the deps (withDeps) and prints its answer, with --json as one
 * JSON line, otherwise as the command's own `text` or, without one, print's `key value` lines.
 */
export async function printAnswer<T extends object>(cli: Cli, json: boolean | undefined, work: (deps: Deps) => Promise<T>, text?: (answer: T) => void): Promise<void> {
  const answer = await withDeps(cli, work);
  if (json || !text) return print(cli, answer, json);
  text(answer);
}

/** The configuration from the environment and `.env`; `serve` asks for what only a server needs too. */
export function readConfig(cli: Cli, options: { serve?: boolean } = {}): Config {
  return inDirectory(cli, loadConfig(envOf(cli), options));
}

/**
 * Opens the same configuration and database as the server, applies migrations, checks the master key
 * against the database's (before anything is written), runs `work` (told which migrations ran), closes.
 * Only `createDatabase` (`migrate`; `serve` opens its own) may start a new database: any other command
 * run where no database is (no DATABASE_URL in a PostgreSQL deployment's directory) would make a stray
 * SQLite file and print ids the server never sees, so it stops naming the place it looked.
 */
export async function withDeps<T>(cli: Cli, work: (deps: Deps, migrated: string[]) => Promise<T>, options: { createDatabase?: boolean } = {}): Promise<T> {
  const config = readConfig(cli);
  if (!options.createDatabase && config.database.kind === 'sqlite' && !existsSync(config.database.path)) throw noDatabase(cli, config.database);
  const deps = createDeps(config, createLogger('warn', cli.stderr as NodeJS.WritableStream));
  try {
    if (!options.createDatabase && !(await appliedMigrations(deps.db))?.length) throw noDatabase(cli, config.database);
    const migrated = await migrateToLatest(deps.db);
    await checkMasterKey(deps);
    // `migrate` makes the console app once (docs/management.md); every later command finds it made.
    await ensureConsoleApp(deps);
    return await work(deps, migrated);
  } finally {
    await deps.close();
  }
}

function noDatabase(cli: Cli, database: DatabaseConfig): ConfigError {
  const where =
    database.kind === 'sqlite'
      ? `the SQLite file ${resolve(database.path)}${cli.env.DATABASE_URL?.trim() ? '' : ' (DATABASE_URL is unset: the default, under this directory)'}`
      : `${withoutPassword(database.url)} (no migration has run there)`;
  return new ConfigError(
    'DATABASE_URL',
    `no Gatehouse database at ${where}; only \`gatehouse serve\` and \`gatehouse migrate\` create one. Run the command with the server's DATABASE_URL (and working directory)`,
  );
}

function withoutPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString();
}
