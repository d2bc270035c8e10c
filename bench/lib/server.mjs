// Starts the BUILT server (`gatehouse serve`) for a benchmark run: its own temporary directory, a free
// port, rate limits off, warn-level logs, and a fresh database (a SQLite file, or a new PostgreSQL
// database that is dropped again on stop).
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { workerExecArgv } from '../../dist/src/runtime/cluster.js';

export const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/gatehouse.js');

export function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/** Resident memory of a process in MB from /proc: `rss` now and `peak` (VmHWM), or undefined off Linux. */
export function rssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1]);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * Starts a new peak for rssOf: the kernel resets the process's VmHWM to its current RSS (clear_refs 5).
 * Quietly does nothing where that is not allowed or not Linux.
 */
export function resetPeakOf(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // not Linux, or not ours to reset: the peak stays the process's lifetime peak
  }
}

/**
 * CPU seconds (user + system, every thread) a process and its child processes (cluster workers) have
 * used so far, from /proc; undefined off Linux.
 */
export function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    let seconds = (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    for (const child of children ? children.split(' ') : []) seconds += cpuOf(child) ?? 0;
    return seconds;
  } catch {
    return undefined;
  }
}

/** The caller's environment minus anything that would configure the server behind the benchmark's back. */
function cleanEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^(DATABASE_URL|REDIS_URL|MASTER_KEY|RATE_LIMITS|SMTP_URL|PUBLIC_BASE_URL|PORT|HOST|LOG_LEVEL|CONFIRMATIONS_URL|HASHCASH_|TEST_)/.test(key)) continue;
    env[key] = value;
  }
  return env;
}

async function adminQuery(adminUrl, text) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database for a server that outlives one start (bench/data-scale.mjs): its own directory, and on
 * PostgreSQL a new database and master key. `startServer({ ..., database })` runs on it; `drop()` removes both.
 * @returns {Promise<{ dir: string, env: Record<string, string>, drop(): Promise<void> }>}
 */
export async function createDatabase({ db, pgAdminUrl }) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const env = {};
  let dropDatabase = async () => {};
  if (db === 'postgres') {
    const name = `gh_bench_${randomBytes(6).toString('hex')}`;
    await adminQuery(pgAdminUrl, `CREATE DATABASE ${name}`);
    dropDatabase = () => adminQuery(pgAdminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const url = new URL(pgAdminUrl);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    env.MASTER_KEY = randomBytes(32).toString('base64');
    env.SMTP_URL = 'log:';
  } else {
    env.DATABASE_URL = `sqlite:${join(dir, 'data/gatehouse.db')}`;
  }
  return {
    dir,
    env,
    drop: async () => {
      await dropDatabase();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `gatehouse ...args` with a database's configuration (createDatabase) and no server; resolves with stdout. */
export function runCli(database, args, { timeout = 600_000 } = {}) {
  return new Promise((resolveRun, reject) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...cleanEnv(), ...database.env }, cwd: database.dir, timeout, maxBuffer: 64 * 1024 ** 2 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`gatehouse ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolveRun(stdout);
    });
  });
}

/**
 * @param {{ db: 'sqlite' | 'postgres', pgAdminUrl: string, workers?: number, redisUrl?: string, logLevel?: string, cpuProfDir?: string, nodeFlags?: string[], database?: { dir: string, env: Record<string, string> } }} options
 *   `database`: run on this database (createDatabase) and leave it in place on stop; by default a fresh one, removed on stop.
 *   `jobs`: the server runs from bench/lib/job-server.mjs, whose background jobs run in its process on call: runJob('prune')
 *   or runJob('billing', 'YYYY-MM') answers { seconds, result } once the job is done.
 *   `env`: more variables for the server, set last (e.g. RATE_LIMITS in place of the bench's `off`).
 *   `bin`: another build's bin/gatehouse.js to serve (an earlier release: bench/migration-load.mjs); cli() stays this build's.
 * @returns {Promise<{ url: string, databaseUrl: string, startMs: number, cli(args: string[]): Promise<any>, stop(): Promise<void>, rss(): { rss: number, peak: number } | undefined, resetPeak(): void }>}
 */
export async function startServer({ db, pgAdminUrl, workers = 1, redisUrl, logLevel = 'warn', cpuProfDir, nodeFlags = [], database, jobs = false, env: extraEnv = {}, bin = BIN }) {
  const dir = database?.dir ?? mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const port = await freePort();
  const env = { ...cleanEnv(), RATE_LIMITS: 'off', LOG_LEVEL: logLevel, PORT: String(port), HOST: '127.0.0.1' };
  if (redisUrl) env.REDIS_URL = redisUrl;
  Object.assign(env, extraEnv);
  let dropDatabase = async () => {};
  if (database) {
    Object.assign(env, database.env);
    if (db === 'postgres') env.PUBLIC_BASE_URL = `http://127.0.0.1:${port}`;
  } else if (db === 'postgres') {
    const name = `gh_bench_${randomBytes(6).toString('hex')}`;
    await adminQuery(pgAdminUrl, `CREATE DATABASE ${name}`);
    dropDatabase = () => adminQuery(pgAdminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const url = new URL(pgAdminUrl);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    env.MASTER_KEY = randomBytes(32).toString('base64');
    env.PUBLIC_BASE_URL = `http://127.0.0.1:${port}`; // required with PostgreSQL
    env.SMTP_URL = 'log:'; // PostgreSQL refuses to start without SMTP_URL; the bench sends no email
  } else {
    env.DATABASE_URL = `sqlite:${join(dir, 'data/gatehouse.db')}`;
  }

  // The server's log lines go to a file, as a deployment's go to its log collector, not into the load
  // generator: autocannon reading and buffering one line per request would slow the load it generates.
  const logPath = join(dir, `server-${port}.log`);
  const logFd = openSync(logPath, 'a');
  // Node's flags as `npm start` gives them (the young-generation bound) unless the caller sizes it.
  const spawnedAt = performance.now();
  // bin/gatehouse.js sizes libuv's pool before anything loads; job-server.mjs is an ES module, so the pool is sized here.
  const entry = jobs ? [join(ROOT, 'bench/lib/job-server.mjs')] : [bin, 'serve', ...(workers > 1 ? ['--workers', String(workers)] : [])];
  if (jobs) env.UV_THREADPOOL_SIZE ??= String(Math.min(4, Math.max(2, availableParallelism())));
  const child = spawn(process.execPath, [...workerExecArgv(nodeFlags), ...(cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(cpuProfDir)] : []), ...entry], { cwd: dir, env, stdio: ['ignore', logFd, logFd, ...(jobs ? ['ipc'] : [])] });
  closeSync(logFd);
  const output = () => readFileSync(logPath, 'utf8').slice(-20_000);
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await dropDatabase();
    if (!database) rmSync(dir, { recursive: true, force: true });
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) {
      const log = output();
      await stop();
      throw new Error(`server exited early (${child.exitCode}); did you run \`npm run build\`?\n${log}`);
    }
    try {
      if ((await fetch(`${url}/v1/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      const log = output();
      await stop();
      throw new Error(`server did not start within 120 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const startMs = performance.now() - spawnedAt;

  /** Runs `gatehouse ...args --json` with the server's configuration; returns the parsed JSON. */
  const cli = (args) =>
    new Promise((resolveRun, reject) => {
      execFile(process.execPath, [BIN, ...args, '--json'], { env, cwd: dir, timeout: 60_000 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`gatehouse ${args.join(' ')} failed: ${stderr || error.message}`));
        else resolveRun(JSON.parse(stdout));
      });
    });

  /** A background job in the server's own process (only with `jobs`). */
  const runJob = (job, period) =>
    new Promise((resolveJob, reject) => {
      child.once('message', (reply) => (reply.error ? reject(new Error(`job ${job} failed in the server: ${reply.error}`)) : resolveJob(reply)));
      child.send({ job, period });
    });

  return { url, pid: child.pid, databaseUrl: env.DATABASE_URL, startMs, cli, stop, output, runJob, rss: () => rssOf(child.pid), resetPeak: () => resetPeakOf(child.pid), cpu: () => cpuOf(child.pid) };
}
