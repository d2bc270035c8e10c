import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, execDatabase, queryDatabase, TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { createBucket, getObject, md5Etag, putObject, random } from '../helpers/objects.js';
import { BASE_ENV, runCli, spawnServe, startServer, type Spawned, type TestServer } from '../helpers/server.js';

// Backups that restore: writes keep coming while the backup runs (users created, objects put and deleted),
// the backup is restored into a fresh server, and every write acknowledged before the backup began is
// there (each user, each object's exact bytes), every deletion acknowledged before it is not, and
// `gatehouse doctor` finds nothing wrong. SQLite through `gatehouse backup` and `gatehouse restore`;
// PostgreSQL through the documented procedure (pg_dump, then the blobs; pg_restore into a new database).
// The server keeps the default blob deletion grace: objects deleted during the backup keep their blobs.

const run = promisify(execFile);
const GRACE = { BLOB_DELETION_GRACE_SECONDS: '3600' };

interface Acked {
  at: number;
  kind: 'user' | 'object' | 'deleted';
  id: string;
  etag?: string;
}

/** Three writers, 14 rounds each: a user, an object, and every third round the deletion of that writer's previous object. */
async function writeLoad(server: TestServer, app: TestApp, bucketId: string, acked: Acked[], started: () => void): Promise<void> {
  const writer = async (w: number) => {
    let previous: string | undefined;
    for (let i = 0; i < 14; i++) {
      const user = await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email: `w${w}.${i}@example.com` } });
      if (user.status === 201) acked.push({ at: Date.now(), kind: 'user', id: user.body.id });
      const key = `w${w}/o${i}`;
      const body = random(2048 + i);
      if ((await putObject(server, app, bucketId, key, body)).status === 200) acked.push({ at: Date.now(), kind: 'object', id: key, etag: md5Etag(body) });
      if (i % 3 === 2 && previous) {
        if ((await api(server, 'DELETE', `/v1/buckets/${bucketId}/objects/${previous.split('/').map(encodeURIComponent).join('/')}`, { bearer: app.secret_key })).status < 300) {
          acked.push({ at: Date.now(), kind: 'deleted', id: previous });
        }
      }
      previous = key;
      if (acked.length >= 12) started();
    }
  };
  await Promise.all([0, 1, 2].map(writer));
}

/** Every write acknowledged before `before` is on `restored`, and every deletion acknowledged before it is not. */
async function checkAcknowledged(restored: TestServer | { url: string; port: number }, app: TestApp, bucketId: string, acked: Acked[], before: number) {
  const target = restored as TestServer;
  const earlier = acked.filter((a) => a.at < before);
  const deleted = new Set(earlier.filter((a) => a.kind === 'deleted').map((a) => a.id));
  // Deleted after the backup began: the copy may have been taken before or after; present, its bytes are exact.
  const deletedLater = new Set(acked.filter((a) => a.kind === 'deleted' && a.at >= before).map((a) => a.id));
  expect(earlier.filter((a) => a.kind === 'user').length).toBeGreaterThan(3);
  for (const write of earlier) {
    if (write.kind === 'user') expect((await api(target, 'GET', `/v1/users/${write.id}`, { bearer: app.secret_key })).status, write.id).toBe(200);
    if (write.kind === 'object' && !deleted.has(write.id)) {
      const res = await getObject(target, app, bucketId, write.id);
      if (deletedLater.has(write.id) && res.status === 404) continue;
      expect(res.status, write.id).toBe(200);
      expect(md5Etag(res.body), write.id).toBe(write.etag);
    }
    if (write.kind === 'deleted') expect((await getObject(target, app, bucketId, write.id)).status, write.id).toBe(404);
  }
}

async function doctorOf(env: Record<string, string>, cwd: string, extra: string[] = []) {
  const result = await runCli(['doctor', '--json', ...extra], env, cwd);
  return { code: result.code, report: JSON.parse(result.stdout || '{}') as Record<string, any>, stderr: result.stderr };
}

describe('backup under write load, restored into a fresh server', () => {
  let server: TestServer;
  let fresh: Spawned | undefined;
  const dirs: string[] = [];
  const tmp = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `gatehouse-${name}-`));
    dirs.push(dir);
    return dir;
  };
  beforeAll(async () => {
    server = await startServer(GRACE, { cliProcess: true });
  });
  afterAll(async () => {
    fresh?.child.kill('SIGKILL');
    await server?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(TEST_DB !== 'sqlite')('SQLite: gatehouse backup DIR while writes go on, gatehouse restore DIR into a fresh directory: every acknowledged write is there', async () => {
    const app = await createApp(server);
    const bucket = await createBucket(server, app);
    const acked: Acked[] = [];
    let startBackup!: () => void;
    const loadStarted = new Promise<void>((r) => (startBackup = r));
    const load = writeLoad(server, app, bucket.bucket_id, acked, () => startBackup());
    await loadStarted;
    const backupDir = join(tmp('backup'), 'b');
    const began = Date.now();
    const backup = await server.cli(['backup', backupDir, '--json']);
    await load;
    expect(backup.code, backup.stderr).toBe(0);
    const report = JSON.parse(backup.stdout);
    expect(report).toMatchObject({ format: 1, missing_blobs: [], master_key_file: true, blob_deletion_grace_seconds: 3600 });
    expect(report.objects).toBeGreaterThan(0);
    // Writes landed while it ran, so the copy was of a live database.
    expect(acked.some((a) => a.at > began)).toBe(true);

    const home = tmp('restored');
    const env = { ...BASE_ENV, HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(home, 'data/gatehouse.db')}` };
    const restored = await runCli(['restore', backupDir, '--json'], env, home);
    expect(restored.code, restored.stderr + restored.stdout).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ master_key_file: true, doctor: { ok: true, missing_blobs: [], orphan_blobs: [], counters: [] } });
    // A second restore onto it is refused: it never overwrites a database.
    expect((await runCli(['restore', backupDir], env, home)).code).toBe(1);

    fresh = await spawnServe(env, home, 60_000);
    await checkAcknowledged({ url: `http://127.0.0.1:${fresh.port}`, port: fresh.port }, app, bucket.bucket_id, acked, began);
  }, 240_000);

  it.skipIf(TEST_DB !== 'postgres')('PostgreSQL: the documented procedure (pg_dump, then the blobs; pg_restore into a new database) while writes go on: every acknowledged write is there', async () => {
    const app = await createApp(server);
    const bucket = await createBucket(server, app);
    const acked: Acked[] = [];
    let startBackup!: () => void;
    const loadStarted = new Promise<void>((r) => (startBackup = r));
    const load = writeLoad(server, app, bucket.bucket_id, acked, () => startBackup());
    await loadStarted;
    const backupDir = tmp('pgdump');
    const began = Date.now();
    await run('pg_dump', ['--format=custom', `--file=${join(backupDir, 'gatehouse.dump')}`, server.databaseUrl]);
    cpSync(join(server.dir, 'data/blobs'), join(backupDir, 'blobs'), { recursive: true });
    await load;
    expect(acked.some((a) => a.at > began)).toBe(true);

    const database = await createPostgresDatabase();
    try {
      await run('pg_restore', ['--no-owner', `--dbname=${database.url}`, join(backupDir, 'gatehouse.dump')]);
      const home = tmp('pg-restored');
      cpSync(join(backupDir, 'blobs'), join(home, 'data/blobs'), { recursive: true });
      const env = { ...BASE_ENV, HOST: '127.0.0.1', DATABASE_URL: database.url, MASTER_KEY: server.env.MASTER_KEY!, ...(server.env.REDIS_URL ? { REDIS_URL: server.env.REDIS_URL } : {}) };
      // Blobs copied after the dump may belong to objects written after it: no row names them, and doctor removes them.
      const doctor = await doctorOf(env, home, ['--remove-orphan-blobs']);
      expect(doctor.report, doctor.stderr).toMatchObject({ ok: true, missing_blobs: [], counters: [] });
      expect(doctor.report.orphan_blobs_removed).toBe(doctor.report.orphan_blobs.length);
      fresh = await spawnServe(env, home, 60_000);
      await checkAcknowledged({ url: `http://127.0.0.1:${fresh.port}`, port: fresh.port }, app, bucket.bucket_id, acked, began);
    } finally {
      fresh?.child.kill('SIGKILL');
      await fresh?.exited;
      fresh = undefined;
      await database.drop();
    }
  }, 240_000);
});

describe('gatehouse doctor', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({}, { cliProcess: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('finds a row whose blob was removed, a blob no row names, and a counter that differs from its sum; says how to repair each', async () => {
    const app = await createApp(server);
    const bucket = await createBucket(server, app);
    for (const key of ['kept', 'lost']) expect((await putObject(server, app, bucket.bucket_id, key, random(100))).status).toBe(200);
    const healthy = await doctorOf(server.env, server.dir);
    expect(healthy.code, healthy.stderr).toBe(0);
    expect(healthy.report).toMatchObject({ ok: true, objects_checked: 2, blobs_checked: 2, missing_blobs: [], orphan_blobs: [], counters: [] });

    const [lost] = await queryDatabase(server.databaseUrl, `select blob_id from objects where app_id = '${app.app_id}' and key = 'lost'`);
    const lostBlob = join(server.dir, 'data/blobs', app.app_id, String(lost!.blob_id));
    rmSync(lostBlob);
    const orphan = join(server.dir, 'data/blobs', app.app_id, '00000000-0000-4000-8000-000000000000');
    writeFileSync(orphan, 'nobody names me');
    await execDatabase(server.databaseUrl, `update buckets set used_bytes = used_bytes + 7 where id = '${bucket.bucket_id}'`);

    const sick = await doctorOf(server.env, server.dir);
    expect(sick.code).toBe(1);
    expect(sick.report.ok).toBe(false);
    expect(sick.report.missing_blobs).toEqual([{ app_id: app.app_id, bucket_id: bucket.bucket_id, key: 'lost', blob_id: lost!.blob_id }]);
    expect(sick.report.orphan_blobs).toEqual([`${app.app_id}/00000000-0000-4000-8000-000000000000`]);
    expect(sick.report.counters).toEqual([
      { counter: 'bucket_bytes', app_id: app.app_id, bucket_id: bucket.bucket_id, kept: 207, sum: 200, repair: `update buckets set used_bytes = 200 where id = '${bucket.bucket_id}'` },
    ]);
    expect(sick.report.repair.join('\n')).toMatch(/without a blob: put the blob back from a backup.*or delete each object/);
    expect(sick.report.repair.join('\n')).toMatch(/--remove-orphan-blobs/);
    // The lost object answers as doctor says: its row is there, its bytes are not.
    expect((await getObject(server, app, bucket.bucket_id, 'lost')).status).toBeGreaterThanOrEqual(400);

    // The repairs it names: the counter's statement, the orphan removed, the lost object deleted.
    await execDatabase(server.databaseUrl, sick.report.counters[0].repair);
    expect((await api(server, 'DELETE', `/v1/buckets/${bucket.bucket_id}/objects/lost`, { bearer: app.secret_key })).status).toBeLessThan(300);
    const repaired = await doctorOf(server.env, server.dir, ['--remove-orphan-blobs']);
    expect(repaired.report).toMatchObject({ ok: true, missing_blobs: [], orphan_blobs_removed: 1, counters: [] });
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(join(server.dir, 'data/blobs', app.app_id))).toBe(true);
    expect((await doctorOf(server.env, server.dir)).report).toMatchObject({ ok: true, objects_checked: 1, blobs_checked: 1 });
  }, 120_000);
});
