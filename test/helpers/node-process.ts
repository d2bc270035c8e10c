import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { createPostgresDatabase, TEST_DB } from './db.js';
import { BASE_ENV, cleanEnv, freePort, runCli, settled, type TestServer } from './server.js';

const BIN = join(resolve(import.meta.dirname, '../..'), 'bin/gatehouse.js');

/** A database and working directory that outlive server processes, so a test can kill and restart nodes on them. */
export interface Deployment {
  dir: string;
  env: Record<string, string>;
  databaseUrl: string;
  destroy(): Promise<void>;
}

/** A `gatehouse serve` process the test may signal; usable wherever a TestServer is. */
export interface NodeProcess extends TestServer {
  child: ChildProcess;
  /** Resolves with the exit code and signal once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * A deployment on the run's database kind (TEST_DB), or on PostgreSQL at `postgresUrl` (an admin URL,
 * e.g. a private cluster's): a fresh database, a MASTER_KEY, a temporary directory.
 */
export async function createDeployment(options: { postgresUrl?: string; env?: Record<string, string> } = {}): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-node-'));
  const env: Record<string, string> = { ...BASE_ENV, HOST: '127.0.0.1', MASTER_KEY: randomBytes(32).toString('base64') };
  let databaseUrl = `sqlite:${join(dir, 'data/gatehouse.db')}`;
  let drop = async () => {};
  if (options.postgresUrl) {
    const name = `gh_node_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: options.postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(options.postgresUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  } else if (TEST_DB === 'postgres') {
    const database = await createPostgresDatabase();
    databaseUrl = database.url;
    drop = database.drop;
  }
  env.DATABASE_URL = databaseUrl;
  if (process.env.TEST_REDIS_URL && !options.postgresUrl) env.REDIS_URL = process.env.TEST_REDIS_URL;
  Object.assign(env, options.env);
  return {
    dir,
    env,
    databaseUrl,
    destroy: async () => {
      await drop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts `gatehouse serve` on the deployment with a free port; resolves once /v1/health answers 200. */
export async function startNode(deployment: Deployment, extraEnv: Record<string, string> = {}): Promise<NodeProcess> {
  const port = await freePort();
  const env = { ...deployment.env, PORT: String(port), ...extraEnv };
  let output = '';
  const child = spawn(process.execPath, [BIN, 'serve'], { cwd: deployment.dir, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output}`);
    try {
      if ((await fetch(`${url}/v1/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    exited,
    url,
    port,
    dir: deployment.dir,
    env,
    databaseUrl: deployment.databaseUrl,
    output: () => output,
    logs: () => settled(() => output),
    cli: (args, more = {}) => runCli(args, { ...env, ...more }, deployment.dir),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    },
  };
}

/** The JSON log lines a node printed. */
export function logLines(node: Pick<TestServer, 'output'>): Array<Record<string, unknown>> {
  return node
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
