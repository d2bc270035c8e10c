import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createPostgresDatabase, TEST_DB } from './db.js';
import { BASE_ENV, cleanEnv, cliRunner, spawnServe, settled, type TestServer } from './server.js';
import { serverDeps } from './server-deps.js';

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
  const env = { ...deployment.env, ...extraEnv };
  const { child, port, output, exited } = await spawnServe(env, deployment.dir, 60_000);
  env.PORT = String(port);
  const url = `http://127.0.0.1:${port}`;
  const deps = serverDeps(() => ({ ...cleanEnv(), ...env }), deployment.dir);
  return {
    child,
    exited,
    pid: child.pid!,
    url,
    port,
    dir: deployment.dir,
    env,
    databaseUrl: deployment.databaseUrl,
    output,
    logs: () => settled(output),
    ...cliRunner(env, deployment.dir),
    deps: deps.get,
    stop: async () => {
      // Before the deployment is destroyed (its database dropped).
      await deps.close();
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
