import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { LOG_FLUSH_MS } from '../../src/observability/logger.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Deps } from '../../src/deps.js';
import { createPostgresDatabase, seedSqliteDatabase, TEST_DB } from './db.js';
import { runCliInProcess } from './cli-in-process.js';
import { serverDeps } from './server-deps.js';
import { onWorkerEnd, workerProcesses } from './worker-processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/gatehouse.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** What `read` gives once the server has written the log lines it had queued (TestServer.logs). */
export async function settled(read: () => string): Promise<string> {
  await new Promise((r) => setTimeout(r, LOG_FLUSH_MS + 150));
  return read();
}

export interface TestServer {
  url: string;
  port: number;
  dir: string;
  env: Record<string, string>;
  databaseUrl: string;
  /** The server's process id. */
  pid: number;
  /** Everything the server printed so far (JSON log lines and the banner). */
  output(): string;
  /**
   * Everything the server printed, once the lines of what it did so far are out: it writes queued log
   * lines at least every LOG_FLUSH_MS, so this waits a little longer than that first. For assertions on
   * what a log does NOT contain, so they cannot pass on lines still in the buffer.
   */
  logs(): Promise<string>;
  /** As logs(), standard output alone (the JSON log; stderr carries the plain setup link). Servers of startServer. */
  stdoutLogs?(): Promise<string>;
  /**
   * Runs `gatehouse ...args` with the server's configuration and working directory: in the test process
   * (cli-in-process.ts) unless the server was started with `cliProcess` (or another build's `bin`).
   */
  cli(args: string[], extraEnv?: Record<string, string>): Promise<CliResult>;
  /** As cli(), always a real `node bin/gatehouse.js` process: for tests of the process itself (docs/testing.md). */
  cliProcess(args: string[], extraEnv?: Record<string, string>): Promise<CliResult>;
  /**
   * What a `gatehouse` command would open (its configuration, database and master key), in the test
   * process: opened on first use, closed by stop(). For fixtures (fixtures.ts) without a CLI process.
   */
  deps(): Promise<Deps>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

export interface Spawned {
  child: ChildProcess;
  port: number;
  output: () => string;
  /** Standard output alone. */
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `gatehouse serve` in `cwd` and resolves once it printed its banner (so it is this process that
 * listens) and /v1/health answers 200. Without PORT in `env` it takes a free port; a port probed free
 * and released can be taken by another socket (an outgoing one included) before the server binds it,
 * so a start that fails with EADDRINUSE is tried again on another port.
 */
export async function spawnServe(env: Record<string, string>, cwd: string, timeoutMs: number, bin = BIN): Promise<Spawned> {
  for (let attempt = 1; ; attempt++) {
    const port = env.PORT ? Number(env.PORT) : await freePort();
    let text = '';
    let stdoutText = '';
    // PostgreSQL requires PUBLIC_BASE_URL (docs/operations.md): unless the test names one, the address it listens
    // on. A named one may hold `{port}`, the port taken (http://localhost:{port}: a host WebAuthn accepts).
    const baseUrl = env.PUBLIC_BASE_URL?.includes('{port}')
      ? { PUBLIC_BASE_URL: env.PUBLIC_BASE_URL.replace('{port}', String(port)) }
      : env.DATABASE_URL?.startsWith('postgres') && !env.PUBLIC_BASE_URL
        ? { PUBLIC_BASE_URL: `http://${env.HOST ?? '127.0.0.1'}:${port}` }
        : {};
    const child = spawn(process.execPath, [bin, 'serve'], { cwd, env: { ...cleanEnv(), ...env, ...baseUrl, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk) => {
      text += chunk;
      stdoutText += chunk;
    });
    child.stderr!.on('data', (chunk) => (text += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
    const output = () => text;
    const banner = `Gatehouse is listening on http://${env.HOST ?? '127.0.0.1'}:${port} `;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        await exited;
        if (!env.PORT && attempt < 5 && text.includes('EADDRINUSE')) break;
        throw new Error(`server exited early (${child.exitCode ?? child.signalCode}):\n${text}`);
      }
      if (text.includes(banner)) {
        try {
          if ((await fetch(`http://127.0.0.1:${port}/v1/health`)).ok) return { child, port, output, stdout: () => stdoutText, exited };
        } catch {
          // not answering yet
        }
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`server did not start:\n${text}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** The environment a test server gets unless the test says otherwise: fast, order-independent. */
export const BASE_ENV: Record<string, string> = {
  RATE_LIMITS: 'off',
  HASHCASH_ENABLED: 'true',
  LOG_LEVEL: 'info',
  // PostgreSQL refuses to start without SMTP_URL; tests that read mail pass their SMTP sink instead.
  SMTP_URL: 'log:',
  // A deleted object's blob goes at once, as tests of deletion expect; backup-restore.test.ts keeps the default grace.
  BLOB_DELETION_GRACE_SECONDS: '0',
};

export function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    // The test runner's own settings must not leak into the server's configuration.
    if (/^(DATABASE_URL|REDIS_URL|MASTER_KEY|RATE_LIMITS|SMTP_URL|PUBLIC_BASE_URL|PORT|HOST|CONFIRMATIONS_URL|HASHCASH_|VITEST|TEST_)/.test(key)) continue;
    env[key] = value;
  }
  return env;
}

export function runCli(args: string[], env: Record<string, string>, cwd: string, bin = BIN): Promise<CliResult> {
  return new Promise((resolveRun) => {
    execFile(process.execPath, [bin, ...args], { env: { ...cleanEnv(), ...env }, cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolveRun({ code, stdout, stderr });
    });
  });
}

/** How a test server's cli() runs: in this process, or (`cliProcess`, or another build's `bin`) as a real process. */
export function cliRunner(env: Record<string, string>, dir: string, options: { bin?: string; cliProcess?: boolean } = {}) {
  // GATEHOUSE_TEST_CLI=process: every cli() a real process (to compare the two, docs/testing.md).
  const inProcess = !options.bin && !options.cliProcess && process.env.GATEHOUSE_TEST_CLI !== 'process';
  return {
    cli: (args: string[], extraEnv: Record<string, string> = {}) =>
      inProcess ? runCliInProcess(args, { ...cleanEnv(), ...env, ...extraEnv }, dir) : runCli(args, { ...env, ...extraEnv }, dir, options.bin),
    cliProcess: (args: string[], extraEnv: Record<string, string> = {}) => runCli(args, { ...env, ...extraEnv }, dir, options.bin),
  };
}

/**
 * Starts the built server (`gatehouse serve`) on a free port with its own temporary directory and a
 * fresh database of the run's kind (TEST_DB). `env` overrides the defaults. `bin`: another build's
 * bin/gatehouse.js (an earlier release, test/helpers/earlier-release.ts), for the server and its cli().
 * `cliProcess`: cli() starts a real CLI process, for the files whose subject is the CLI (docs/testing.md).
 */
export async function startServer(env: Record<string, string> = {}, options: { bin?: string; cliProcess?: boolean } = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
  let dropDatabase = async () => {};
  let databaseUrl = `sqlite:${join(dir, 'data/gatehouse.db')}`;
  const serverEnv: Record<string, string> = { ...BASE_ENV, HOST: '127.0.0.1' };
  // The build under test starts from the run's migrated template (db.ts); another build (an earlier release)
  // from empty, migrating it as that release does.
  const migrated = options.bin === undefined;
  if (TEST_DB === 'postgres') {
    const database = await createPostgresDatabase({ migrated });
    databaseUrl = database.url;
    dropDatabase = database.drop;
    serverEnv.MASTER_KEY = randomBytes(32).toString('base64');
  } else if (migrated) {
    seedSqliteDatabase(join(dir, 'data/gatehouse.db'));
  }
  serverEnv.DATABASE_URL = databaseUrl;
  if (process.env.TEST_REDIS_URL) serverEnv.REDIS_URL = process.env.TEST_REDIS_URL;
  Object.assign(serverEnv, env);

  const { child, port, output, stdout, exited } = await spawnServe(serverEnv, dir, 60_000, options.bin);
  serverEnv.PORT = String(port);
  if (serverEnv.PUBLIC_BASE_URL?.includes('{port}')) serverEnv.PUBLIC_BASE_URL = serverEnv.PUBLIC_BASE_URL.replace('{port}', String(port));
  const url = `http://127.0.0.1:${port}`;
  const deps = serverDeps(() => ({ ...cleanEnv(), ...serverEnv }), dir);

  return {
    url,
    port,
    dir,
    env: serverEnv,
    databaseUrl,
    pid: child.pid!,
    output,
    logs: () => settled(output),
    stdoutLogs: () => settled(stdout),
    ...cliRunner(serverEnv, dir, options),
    deps: deps.get,
    stop: async () => {
      // Before the database is dropped and the directory removed, under a pool or file still open.
      await deps.close();
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      await dropDatabase();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The servers this vitest worker keeps for its files, by environment (sharedServer). */
const kept = new Map<string, Promise<TestServer>>();
let keptCleanup = false;

/**
 * A server of the default environment (or of `env`) shared by every file this vitest worker runs that
 * asks for the same environment: started on first use, stopped when the worker ends. Each file makes its
 * own tenant and apps on it, which is the isolation the product promises its tenants; `stop()` only lets
 * go of it. For files listed in test/suite.mjs SHARED (one worker runs many of them, isolate: false;
 * elsewhere the worker, and so the server, lasts one file).
 *
 * Not for a file that reads the whole database (a count of every user, a listing of every tenant), asserts
 * what a log lacks, restarts or kills its server, or sets per-IP rate limits another file would spend: those
 * keep startServer().
 */
export async function sharedServer(env: Record<string, string> = {}): Promise<TestServer> {
  const key = JSON.stringify(Object.entries(env).sort(([a], [b]) => a.localeCompare(b)));
  let starting = kept.get(key);
  // A kept server whose process ended (a crash) is replaced, so it fails one file rather than every later one.
  if (starting && !(await starting.then(alive, () => false))) starting = undefined;
  if (!starting) {
    starting = startServer(env).then((server) => {
      workerProcesses.add(server.pid);
      return server;
    });
    kept.set(key, starting);
    // One that failed to start is tried again by the next file.
    starting.catch(() => kept.delete(key));
    stopKeptWhenWorkerEnds();
  }
  const server = await starting;
  return { ...server, stop: async () => {} };
}

function alive(server: TestServer): boolean {
  try {
    process.kill(server.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops the kept servers (and drops their databases) when vitest tears the worker down. */
function stopKeptWhenWorkerEnds(): void {
  if (keptCleanup) return;
  keptCleanup = true;
  onWorkerEnd(async () => {
    const servers = await Promise.allSettled([...kept.values()]);
    kept.clear();
    await Promise.allSettled(
      servers.map(async (s) => {
        if (s.status !== 'fulfilled') return;
        await s.value.stop();
        workerProcesses.delete(s.value.pid);
      }),
    );
  });
}
