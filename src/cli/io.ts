import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { loadDotEnv, type Config } from '../config/index.js';
import type { Env } from '../config/env.js';

// Where one run of the CLI reads and writes: the process's environment, streams and working directory for
// bin/gatehouse.js, or what a caller gives run() (test/helpers/server.ts runs commands in its own process).
// Each run has its own Cli: two runs at once share nothing.

/** What a command writes to: a stream, or anything with write(text). */
export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** What run() may be given; each part left out is the process's own. */
export interface CliIo {
  env?: Env;
  stdout?: Output;
  stderr?: Output;
  stdin?: AsyncIterable<Buffer | string>;
  /** The working directory relative paths (arguments, `.env`, the SQLite file, ./data) are found under. */
  cwd?: string;
}

/** One run's environment and streams, and the exit code its command sets (0 unless it says otherwise). */
export interface Cli {
  env: Env;
  stdout: Output;
  stderr: Output;
  stdin: AsyncIterable<Buffer | string>;
  cwd: string | undefined;
  /** Whether this run is the process's own (bin/gatehouse.js): only then may a command listen or fork. */
  ownProcess: boolean;
  exitCode: number;
}

/** The run of `io`; without one, the process's own (bin/gatehouse.js). */
export function cliOf(io?: CliIo): Cli {
  return {
    env: io?.env ?? process.env,
    stdout: io?.stdout ?? process.stdout,
    stderr: io?.stderr ?? process.stderr,
    stdin: io?.stdin ?? process.stdin,
    cwd: io?.cwd,
    ownProcess: io === undefined,
    exitCode: 0,
  };
}

/** `path` as the run's working directory finds it. */
export function pathOf(cli: Cli, path: string): string {
  return cli.cwd === undefined ? path : resolve(cli.cwd, path);
}

/**
 * The run's environment with `.env` (of its working directory) under it: existing variables win. The
 * process's own run loads it into process.env, as it always has; any other gets a copy, the caller's untouched.
 */
export function envOf(cli: Cli): Env {
  if (cli.ownProcess) {
    loadDotEnv();
    return process.env;
  }
  const file = pathOf(cli, '.env');
  return existsSync(file) ? { ...parseEnv(readFileSync(file, 'utf8')), ...cli.env } : cli.env;
}

/** `config` as a process working in the run's directory reads it: its relative paths resolved there. */
export function inDirectory(cli: Cli, config: Config): Config {
  if (cli.cwd === undefined) return config;
  const { database, blobStore } = config;
  return {
    ...config,
    database: database.kind === 'sqlite' ? { ...database, path: pathOf(cli, database.path) } : database,
    blobStore: blobStore.kind === 'file' ? { ...blobStore, dir: pathOf(cli, blobStore.dir) } : blobStore,
    dataDir: pathOf(cli, config.dataDir),
  };
}

/** Writes `chunk`, waiting for a stream to drain when it asks to (a large export to a slow pipe). */
export async function writeDrained(out: Output, chunk: string): Promise<void> {
  if (out.write(chunk) !== false) return;
  const stream = out as Partial<NodeJS.WritableStream>;
  if (typeof stream.once === 'function') await new Promise((r) => stream.once!('drain', r));
}
