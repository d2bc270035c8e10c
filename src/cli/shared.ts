import { InvalidArgumentError } from 'commander';
import { loadConfig, loadDotEnv, type Config } from '../config/index.js';
import { createDeps, type Deps } from '../deps.js';
import { createLogger } from '../logger.js';
import { migrateToLatest } from '../store/migrations/index.js';

// What every command group shares: option parsers, printing, and the one way a command opens the database.

/** Exit codes: 0 done, 1 the operation failed, 2 bad usage or configuration. */
export class UsageError extends Error {}

export function onOff(value: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new InvalidArgumentError('expected on or off');
}

export function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}

export function usd(value: string): number {
  if (!/^\d+(\.\d{1,2})?$/.test(value)) throw new InvalidArgumentError('expected a USD amount like 1 or 2.50');
  return Number(value);
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `--json`: one JSON line; otherwise one `key value` line per field. */
export function print(value: object, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(JSON.stringify(value) + '\n');
    return;
  }
  for (const [key, field] of Object.entries(value)) {
    const shown = Array.isArray(field) ? field.join(', ') : field !== null && typeof field === 'object' ? JSON.stringify(field) : String(field);
    process.stdout.write(`${key.padEnd(22)} ${shown}\n`);
  }
  if ('secret_key' in value) process.stdout.write('\nThe secret key is shown once: store it now.\n');
}

export function readConfig(): Config {
  loadDotEnv();
  return loadConfig(process.env);
}

/** Opens the same configuration and database as the server, applies migrations, runs `work`, closes. */
export async function withDeps<T>(work: (deps: Deps) => Promise<T>): Promise<T> {
  const config = readConfig();
  const deps = createDeps(config, createLogger('warn', process.stderr));
  try {
    await migrateToLatest(deps.db);
    return await work(deps);
  } finally {
    await deps.close();
  }
}
