import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerThreadPool } from '../../src/runtime/cluster.js';
import { createPostgresDatabase, TEST_DB } from '../helpers/db.js';
import { api } from '../helpers/fixtures.js';
import { runCli, type TestServer } from '../helpers/server.js';

// `gatehouse serve --workers N|auto` (issue 14): several processes on one port; more than one needs
// REDIS_URL (rate limits shared), else start-up refuses and says why.
const BIN = resolve(import.meta.dirname, '../../bin/gatehouse.js');
let dir: string;
let env: Record<string, string>;
let dropDb = async () => {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-workers-'));
  env = { SMTP_URL: 'log:', LOG_LEVEL: 'info', RATE_LIMITS: 'off', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'data/gatehouse.db')}` };
  if (TEST_DB === 'postgres') {
    const database = await createPostgresDatabase();
    env.DATABASE_URL = database.url;
    env.MASTER_KEY = randomBytes(32).toString('base64');
    env.PUBLIC_BASE_URL = 'https://auth.example.test';
    dropDb = database.drop;
  }
});
afterAll(async () => {
  await dropDb();
  rmSync(dir, { recursive: true, force: true });
});

describe('serve --workers', () => {
  it('more than one worker without REDIS_URL: start-up refuses (exit 2) and says why', async () => {
    const res = await runCli(['serve', '--workers', '2'], { ...env, PORT: '0' }, dir);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/REDIS_URL/);
    expect(res.stderr).toMatch(/rate limits/);
  });

  it('a bad --workers value is a usage error (exit 2)', async () => {
    for (const value of ['0', 'many', '-1', '65']) {
      const res = await runCli(['serve', '--workers', value], env, dir);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/--workers/);
    }
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('with REDIS_URL, two processes answer on one port and stop on SIGTERM', async () => {
    // PORT=0: the cluster's primary binds a port of its own and every worker shares it; the banner says which.
    let output = '';
    const child = spawn(process.execPath, [BIN, 'serve', '--workers', '2'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...env, PORT: '0', REDIS_URL: process.env.TEST_REDIS_URL! },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await expect.poll(() => /listening on http:\/\/127\.0\.0\.1:\d+ /.test(output), { timeout: 60_000, interval: 100 }).toBe(true);
      const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+) /.exec(output)![1]);
      expect(port).toBeGreaterThan(0);
      const server = { url: `http://127.0.0.1:${port}` } as TestServer;
      // Both workers listen once the banner's worker and one more "Server listening" line are out.
      await expect.poll(() => output.split('\n').filter((l) => l.includes('Server listening')).length, { timeout: 60_000, interval: 100 }).toBe(2);
      const ids = Array.from({ length: 30 }, (_, i) => `workers-${i}-${randomBytes(4).toString('hex')}`);
      for (const id of ids) expect((await api(server, 'GET', '/v1/health', { headers: { 'x-request-id': id, connection: 'close' } })).status).toBe(200);
      const pidsOf = () =>
        new Set(
          output
            .split('\n')
            .filter((l) => ids.some((id) => l.includes(`"reqId":"${id}"`)))
            .map((l) => JSON.parse(l).pid as number),
        );
      await expect.poll(() => pidsOf().size, { timeout: 5_000 }).toBe(2);
      // With no UV_THREADPOOL_SIZE set, the workers share the cores out: each worker's own pool.
      const pools = output
        .split('\n')
        .filter((l) => l.includes('"msg":"password hashing"'))
        .map((l) => JSON.parse(l).thread_pool as number);
      expect(pools).toEqual([workerThreadPool(availableParallelism(), 2), workerThreadPool(availableParallelism(), 2)]);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
