import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import SQLite from 'better-sqlite3';
import type { BlobStore } from '../../blobs/store.js';
import { BLOB_NAME } from '../../blobs/store.js';
import type { Config } from '../../config/index.js';
import { RELEASE } from '../../release.js';
import { openStore } from '../../store/db.js';
import { listObjectBlobs } from '../../store/repos/consistency.js';
import { blobName } from '../objects/blob-deletion.js';

// `gatehouse backup DIR` and `gatehouse restore DIR` on SQLite (docs/operations.md, "Backups"). The database
// first, through SQLite's online backup API (a consistent copy while the server writes), then the blob of
// every object that copy names, read through the blob store (file or S3). A deleted object's blob stays in
// the store for BLOB_DELETION_GRACE_SECONDS, so every blob the copy names is still there while the backup
// runs within that grace; one that is not is reported, and the backup fails.

const DATABASE_FILE = 'gatehouse.db';
const MASTER_KEY_FILE = 'master.key';
const MANIFEST = 'manifest.json';
const PAGE = 500;

export class BackupError extends Error {}

export interface BackupManifest {
  format: 1;
  release: string;
  created_at: string;
  objects: number;
  blob_bytes: number;
  master_key_file: boolean;
  took_seconds: number;
  blob_deletion_grace_seconds: number;
}

export interface BackupReport extends BackupManifest {
  dir: string;
  /** Objects the database copy names whose blob was gone (deleted past the grace, or lost): the backup failed. */
  missing_blobs: string[];
}

function sqlitePath(config: Config): string {
  if (config.database.kind !== 'sqlite') {
    throw new BackupError('gatehouse backup and restore are for SQLite; on PostgreSQL use pg_dump or base backups with WAL archiving and S3 versioning (docs/operations.md, "Backups")');
  }
  return config.database.path;
}

async function emptyOrAbsent(dir: string): Promise<boolean> {
  return !existsSync(dir) || (await readdir(dir)).length === 0;
}

export async function backup(config: Config, blobs: BlobStore, dir: string): Promise<BackupReport> {
  const source = sqlitePath(config);
  if (!existsSync(source)) throw new BackupError(`no database at ${resolve(source)}`);
  if (!(await emptyOrAbsent(dir))) throw new BackupError(`${resolve(dir)} is not empty: back up into a new directory`);
  const started = Date.now();
  await mkdir(join(dir, 'blobs'), { recursive: true });

  // The online backup API, all pages in one step: one read transaction on the source (writers go on, in
  // WAL mode), so no write restarts the copy however busy the server is.
  const database = new SQLite(source, { fileMustExist: true });
  try {
    database.pragma('busy_timeout = 15000');
    await database.backup(join(dir, DATABASE_FILE), { progress: () => 0x7fffffff });
  } finally {
    database.close();
  }

  const report: BackupReport = {
    format: 1,
    release: RELEASE.name,
    created_at: new Date(started).toISOString(),
    objects: 0,
    blob_bytes: 0,
    master_key_file: false,
    took_seconds: 0,
    blob_deletion_grace_seconds: config.blobDeletionGraceSeconds,
    dir: resolve(dir),
    missing_blobs: [],
  };
  const copy = openStore({ kind: 'sqlite', path: join(dir, DATABASE_FILE) });
  try {
    for (let after = ''; ; ) {
      const rows = await listObjectBlobs(copy.db, after, PAGE);
      for (const row of rows) {
        const name = blobName(row.app_id, row.blob_id);
        if (!(await blobs.exists(name))) {
          report.missing_blobs.push(name);
          continue;
        }
        const target = join(dir, 'blobs', name);
        await mkdir(dirname(target), { recursive: true });
        await pipeline(await blobs.get(name), createWriteStream(target, { mode: 0o600 }));
        report.objects++;
        report.blob_bytes += (await stat(target)).size;
      }
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1]!.blob_id;
    }
  } finally {
    await copy.close();
  }

  // Without MASTER_KEY the key lives in the data directory, and the signing keys open with nothing else.
  const keyFile = join(config.dataDir, MASTER_KEY_FILE);
  if (!config.masterKey && existsSync(keyFile)) {
    await copyFile(keyFile, join(dir, MASTER_KEY_FILE));
    report.master_key_file = true;
  }
  report.took_seconds = Math.round((Date.now() - started) / 100) / 10;
  const { dir: _dir, missing_blobs: _missing, ...manifest } = report;
  await writeFile(join(dir, MANIFEST), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
  return report;
}

export interface RestoreReport {
  database: string;
  objects: number;
  master_key_file: boolean;
  backup_release: string;
}

/** Restores a backup into a place with no database yet (a fresh server's, before it starts). */
export async function restore(config: Config, blobs: BlobStore, dir: string): Promise<RestoreReport> {
  const target = sqlitePath(config);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as BackupManifest;
  } catch {
    throw new BackupError(`${resolve(dir)} holds no backup (${MANIFEST} is missing or unreadable)`);
  }
  if (manifest.format !== 1) throw new BackupError(`unknown backup format ${String(manifest.format)}`);
  if (existsSync(target) || existsSync(`${target}-wal`)) {
    throw new BackupError(`a database is already at ${resolve(target)}: restore into a fresh place (stop the server and move the old files away first)`);
  }
  const keyFile = join(config.dataDir, MASTER_KEY_FILE);
  if (manifest.master_key_file && !config.masterKey && existsSync(keyFile) && (await readFile(keyFile, 'utf8')) !== (await readFile(join(dir, MASTER_KEY_FILE), 'utf8'))) {
    throw new BackupError(`${resolve(keyFile)} holds another master key than the backup's: move it away first`);
  }

  let objects = 0;
  const root = join(dir, 'blobs');
  for (const app of await readdir(root).catch(() => [] as string[])) {
    for (const blob of await readdir(join(root, app))) {
      const name = `${app}/${blob}`;
      if (!BLOB_NAME.test(name)) continue;
      const path = join(root, name);
      await blobs.put(name, createReadStream(path), (await stat(path)).size);
      objects++;
    }
  }
  if (manifest.master_key_file && !config.masterKey && !existsSync(keyFile)) {
    await mkdir(config.dataDir, { recursive: true });
    await copyFile(join(dir, MASTER_KEY_FILE), keyFile);
  }
  // The database last, under a temporary name then renamed: a server started meanwhile finds none rather than half.
  await mkdir(dirname(resolve(target)), { recursive: true });
  await copyFile(join(dir, DATABASE_FILE), `${target}.restoring`);
  await rename(`${target}.restoring`, target);
  return { database: resolve(target), objects, master_key_file: manifest.master_key_file, backup_release: manifest.release };
}
