import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// A release that says what it is: GET /v1/health's release, `gatehouse --version` and gatehouse_build_info
// name the same build (the package version and the commit `npm run build` recorded in dist/release.json);
// /v1/health/live answers while readiness does not; off a terminal every line the server prints is JSON.

const ROOT = resolve(import.meta.dirname, '../..');
const recorded = JSON.parse(readFileSync(join(ROOT, 'dist/release.json'), 'utf8')) as { version: string; commit: string };
const packageVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ SHUTDOWN_DRAIN_SECONDS: '5', SHUTDOWN_GRACE_SECONDS: '8' }, { cliProcess: true });
});
afterAll(async () => {
  await server?.stop();
});

describe('the release', () => {
  it('dist/release.json records the package version and a commit of this repository', () => {
    expect(recorded.version).toBe(packageVersion);
    expect(recorded.commit).toMatch(/^[0-9a-f]{40}$/);
    // A commit git knows (the build ran in this checkout), whichever commit HEAD has moved to since.
    expect(execFileSync('git', ['cat-file', '-t', recorded.commit], { cwd: ROOT }).toString().trim()).toBe('commit');
  });

  it('GET /v1/health keeps version v0.1 and names the release as gatehouse --version prints it', async () => {
    const name = `${recorded.version}+${recorded.commit.slice(0, 12)}`;
    const health = await api(server, 'GET', '/v1/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', version: 'v0.1', release: name });
    const cli = await server.cli(['--version']);
    expect(cli.code).toBe(0);
    expect(cli.stdout.trim()).toBe(name);
  });

  it('gatehouse_build_info{version,commit} is 1', async () => {
    const metrics = await api(server, 'GET', '/metrics');
    expect(metrics.body).toContain(`gatehouse_build_info{version="${recorded.version}",commit="${recorded.commit}"} 1\n`);
  });

  it('the build outside git records "unknown", and GATEHOUSE_COMMIT when an image build passes it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-release-'));
    try {
      mkdirSync(join(dir, 'tools'));
      copyFileSync(join(ROOT, 'tools/release-json.mjs'), join(dir, 'tools/release-json.mjs'));
      copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
      const env = { ...process.env, GIT_CEILING_DIRECTORIES: tmpdir(), GATEHOUSE_COMMIT: '' };
      execFileSync(process.execPath, ['tools/release-json.mjs'], { cwd: dir, env });
      expect(JSON.parse(readFileSync(join(dir, 'dist/release.json'), 'utf8'))).toEqual({ version: packageVersion, commit: 'unknown' });
      execFileSync(process.execPath, ['tools/release-json.mjs'], { cwd: dir, env: { ...env, GATEHOUSE_COMMIT: 'ABCDEF1234567' } });
      expect(JSON.parse(readFileSync(join(dir, 'dist/release.json'), 'utf8'))).toEqual({ version: packageVersion, commit: 'abcdef1234567' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('health: liveness beside readiness, and JSON-only output off a terminal', () => {
  it('every line the server printed on stdout is JSON, the start-up banner one of them', async () => {
    // stderr carries the one plain setup link of a database with no operator (docs/management.md), never stdout.
    const lines = (await server.stdoutLogs!()).split('\n').filter((line) => line.trim() !== '');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    const banner = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.code === 'listening');
    expect(banner).toMatchObject({ msg: expect.stringMatching(/^Gatehouse is listening on http:\/\/127\.0\.0\.1:\d+ /), address: server.url, release: expect.any(String) });
  });

  it('gatehouse nodes list --json names this node and its release (the release record, docs/upgrading.md)', async () => {
    const listed = await server.cli(['nodes', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const report = JSON.parse(listed.stdout) as { releases: unknown[]; nodes: { node_id: string; release: string }[] };
    const name = `${recorded.version}+${recorded.commit.slice(0, 12)}`;
    expect(report.releases).toEqual([{ release: name, latest_migration: expect.stringMatching(/^\d{4}-/), known_migrations: expect.any(Number), nodes: 1 }]);
    expect(report.nodes).toEqual([expect.objectContaining({ node_id: expect.stringContaining(`:${server.pid}:`), release: name })]);
  });

  it('/v1/health/live answers 200 while the node drains after SIGTERM and readiness answers 503 shutting_down', async () => {
    expect(await api(server, 'GET', '/v1/health/live')).toMatchObject({ status: 200, body: { status: 'ok' } });
    process.kill(server.pid, 'SIGTERM');
    await expect.poll(async () => (await api(server, 'GET', '/v1/health')).status, { timeout: 4_000, interval: 50 }).toBe(503);
    expect((await api(server, 'GET', '/v1/health')).body).toEqual({ detail: 'shutting down', code: 'shutting_down' });
    expect(await api(server, 'GET', '/v1/health/live')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('the node that shut down gracefully removed its row: no live node is listed', async () => {
    const alive = () => {
      try {
        process.kill(server.pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(alive, { timeout: 15_000, interval: 100 }).toBe(false);
    const listed = await server.cli(['nodes', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual({ releases: [], nodes: [] });
  });
});
