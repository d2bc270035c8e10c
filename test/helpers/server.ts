import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { LOG_FLUSH_MS } from '../../src/logger.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createPostgresDatabase, TEST_DB } from './db.js';

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
  /** Everything the server printed so far (JSON log lines and the banner). */
  output(): string;
  /**
   * Everything the server printed, once the lines of what it did so far are out: it writes queued log
   * lines at least every LOG_FLUSH_MS, so this waits a little longer than that first. For assertions on
   * what a log does NOT contain, so they cannot pass on lines still in the buffer.
   */
  logs(): Promise<string>;
  /** Runs `gatehouse ...args` with the server's configuration and working directory. */
  cli(args: string[], extraEnv?: Record<string, string>): Promise<CliResult>;
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

/** The environment a test server gets unless the test says otherwise: fast, order-independent. */
export const BASE_ENV: Record<string, string> = {
  RATE_LIMITS: 'off',
  HASHCASH_ENABLED: 'true',
  LOG_LEVEL: 'info',
  // PostgreSQL refuses to start without SMTP_URL; tests that read mail pass their SMTP sink instead.
  SMTP_URL: 'log:',
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

export function runCli(args: string[], env: Record<string, string>, cwd: string): Promise<CliResult> {
  return new Promise((resolveRun) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...cleanEnv(), ...env }, cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolveRun({ code, stdout, stderr });
    });
  });
}

/**
 * Starts the built server (`gatehouse serve`) on a free port with its own temporary directory and a
 * fresh database of the run's kind (TEST_DB). `env` overrides the defaults.
 */
export async function startServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
  const port = await freePort();
  let dropDatabase = async () => {};
  let databaseUrl = `sqlite:${join(dir, 'data/gatehouse.db')}`;
  const serverEnv: Record<string, string> = { ...BASE_ENV, PORT: String(port), HOST: '127.0.0.1' };
  if (TEST_DB === 'postgres') {
    const database = await createPostgresDatabase();
    databaseUrl = database.url;
    dropDatabase = database.drop;
    serverEnv.MASTER_KEY = randomBytes(32).toString('base64');
  }
  serverEnv.DATABASE_URL = databaseUrl;
  if (process.env.TEST_REDIS_URL) serverEnv.REDIS_URL = process.env.TEST_REDIS_URL;
  Object.assign(serverEnv, env);

  let output = '';
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve'], {
    cwd: dir,
    env: { ...cleanEnv(), ...serverEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output}`);
    try {
      const response = await fetch(`${url}/v1/health`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }

  return {
    url,
    port,
    dir,
    env: serverEnv,
    databaseUrl,
    output: () => output,
    logs: () => settled(() => output),
    cli: (args, extraEnv = {}) => runCli(args, { ...serverEnv, ...extraEnv }, dir),
    stop: async () => {
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
