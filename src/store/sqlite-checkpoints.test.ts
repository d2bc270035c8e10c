import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from './db.js';

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A SQLite file store; `onFrames` hears the checkpoint thread's copies when given (and `onTruncated` its emptied logs). */
function fileStore(onFrames?: (frames: number) => void, options: { walLimitMb?: number; onTruncated?: () => void } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-checkpoints-'));
  dirs.push(dir);
  const path = join(dir, 'db.sqlite');
  const store = openStore(
    { kind: 'sqlite', path },
    { queryTimeoutMs: 5_000, poolTimeoutMs: 5_000, sqliteWalLimitMb: options.walLimitMb, backgroundCheckpoints: onFrames && { checkpointed: onFrames, truncated: options.onTruncated } },
  );
  stores.push(store);
  return { store, path, dir };
}

const autocheckpoint = async (store: Store) => (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db)).rows[0].wal_autocheckpoint;

/** Rows in the database file alone, without its write-ahead log: what checkpoints have copied into it. */
function rowsInDatabaseFile(path: string, dir: string): number {
  const copy = join(dir, `copy-${Date.now()}.sqlite`);
  copyFileSync(path, copy);
  const db = new SQLite(copy, { readonly: true });
  try {
    const table = db.prepare("select 1 from sqlite_master where name = 't'").get();
    return table ? (db.prepare('select count(*) as n from t').get() as { n: number }).n : 0;
  } finally {
    db.close();
  }
}

/** Commits 4,000 rows of 1 KB in 40 transactions: about 1,000 pages of log, the point where a commit would checkpoint. */
async function write(store: Store) {
  await sql`create table t (id integer primary key, v text)`.execute(store.db);
  for (let i = 0; i < 40; i++) {
    await store.db.transaction().execute(async (trx) => {
      for (let j = 0; j < 100; j++) await sql`insert into t (v) values (${'x'.repeat(1000)})`.execute(trx);
    });
  }
}

describe('SQLite checkpoints off the event loop (issue 38)', () => {
  it("a server's store leaves commits to append only (until half of SQLITE_WAL_LIMIT_MB), and its thread copies the log into the database file", async () => {
    let copied = 0;
    const { store, path, dir } = fileStore((frames) => (copied += frames));
    // 32 MiB of 4 KiB pages and their 24-byte headers: far past what the thread leaves in the log.
    expect(await autocheckpoint(store)).toBe(Math.floor((32 * 2 ** 20) / (4096 + 24)));
    expect((await sql<{ journal_size_limit: number }>`pragma journal_size_limit`.execute(store.db)).rows[0].journal_size_limit).toBe(16 * 2 ** 20);
    await write(store);
    const deadline = Date.now() + 10_000;
    // A copy taken while the thread writes the file may be torn: that read counts as not there yet.
    const rows = () => {
      try {
        return rowsInDatabaseFile(path, dir);
      } catch {
        return 0;
      }
    };
    // The thread's report of a checkpoint may arrive after the file has it.
    while ((rows() < 4_000 || copied < 1_000) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(rowsInDatabaseFile(path, dir)).toBe(4_000);
    expect(copied).toBeGreaterThan(1_000);
  });

  it('issue 45: a log past a quarter of SQLITE_WAL_LIMIT_MB is emptied by the thread (a TRUNCATE checkpoint), not left at its largest', async () => {
    let truncations = 0;
    const { store, path, dir } = fileStore(() => {}, { walLimitMb: 8, onTruncated: () => truncations++ });
    // One transaction of about 3 MB: past the quarter (2 MiB), short of what makes a commit checkpoint (4 MiB).
    await sql`create table t (id integer primary key, v text)`.execute(store.db);
    await store.db.transaction().execute(async (trx) => {
      for (let j = 0; j < 3_000; j++) await sql`insert into t (v) values (${'x'.repeat(1000)})`.execute(trx);
    });
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(2 * 2 ** 20);
    await expect.poll(() => statSync(`${path}-wal`).size, { timeout: 5_000, interval: 20 }).toBe(0);
    // The thread's report may arrive after the file has been cut.
    await expect.poll(() => truncations, { timeout: 2_000, interval: 20 }).toBeGreaterThan(0);
    expect(rowsInDatabaseFile(path, dir)).toBe(3_000);
  });

  it('without it (a CLI command), a commit checkpoints as SQLite does by default', async () => {
    const { store, path } = fileStore();
    expect(await autocheckpoint(store)).toBe(1000);
    await write(store);
    // The commit past 1,000 pages copied the log back and the next writes reuse it: it never grows past that much.
    expect(statSync(`${path}-wal`).size).toBeLessThan(1_100 * 4096);
  });

  it('closing the store stops the thread and gives commits their checkpoints back first', async () => {
    const { store, path, dir } = fileStore(() => {});
    await write(store);
    await store.close();
    stores.splice(stores.indexOf(store), 1);
    // The last connection's close checkpoints what is left, as SQLite always does.
    expect(rowsInDatabaseFile(path, dir)).toBe(4_000);
  });
});
