import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database as SqliteDatabase } from 'better-sqlite3';

// SQLite in WAL mode appends each commit to the write-ahead log; a checkpoint copies the log back into the
// database file and syncs it. By default the commit that takes the log past 1,000 pages runs that checkpoint
// itself, and better-sqlite3 runs every statement on the event loop: at a million sessions one commit in three
// of the clean-up ran a checkpoint, and that commit held every request for up to 53 ms instead of 14 ms
// (bench/README.md, "Data scale", 2026-11-29). So the server checkpoints from a worker thread with a
// connection of its own: PASSIVE checkpoints never wait for, nor block, a reader or a writer, and the copying
// and syncing happen off the event loop. Commits on the loop only append to the log.
//
// The log is one file for every app's writes, and a PASSIVE checkpoint never shrinks it: the log starts
// over from its beginning only when a write begins after everything was copied, which under a steady
// stream of commits almost never happens, so it grew with every write (a burst of 6,000 rows of a
// 100-column table left a 3.3 GB log beside a 41 MB database; issue 45). Three things now bound it by
// SQLITE_WAL_LIMIT_MB (docs/operations.md, "The write-ahead log has one cap"): once the file is past a quarter of the
// limit, the thread runs a TRUNCATE checkpoint, which empties it (waiting at most TRUNCATE_WAIT_MS for the
// writer in progress, so the event loop's next commit waits at most for the last frames' copy); a write
// that finds half the limit in the log checkpoints it first on the server's connection (logGuard, below), so
// it starts the log over whatever the thread manages; and `journal_size_limit` (a quarter) cuts
// the file back whenever the log starts over.

/** How often the thread checkpoints (a checkpoint with nothing to copy costs microseconds). */
export const CHECKPOINT_EVERY_MS = 200;
/** SQLite's own default: the page count at which a commit checkpoints, restored if the thread goes away. */
const AUTOCHECKPOINT_PAGES = 1000;
/** The default of SQLITE_WAL_LIMIT_MB. */
export const WAL_LIMIT_MB = 64;
/** How long the thread's TRUNCATE checkpoint waits for a writer or a reader to finish before it tries again on a later tick. */
const TRUNCATE_WAIT_MS = 50;

/** The size `journal_size_limit` cuts the log back to, and past which the thread truncates it: a quarter of the limit. */
export const walKeepBytes = (limitBytes: number) => Math.floor(limitBytes / 4);

/** A log frame: a page and its 24-byte header. */
const frameBytes = (pageSize: number) => pageSize + 24;

/** What the checkpoint thread reports: checkpoints that copied log frames (page writes), logs it emptied, and failures. */
export interface CheckpointEvents {
  checkpointed?(frames: number): void;
  truncated?(): void;
  failed?(error: Error): void;
}

// The thread's code: a CommonJS script (eval), so it needs no file of its own beside src/ and dist/.
const THREAD = `
const { statSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 0');
db.pragma('journal_size_limit = ' + workerData.keepBytes);
const logBytes = () => {
  try {
    return statSync(workerData.path + '-wal').size;
  } catch {
    return 0;
  }
};
// SQLite answers the frames of the current log checkpointed so far; a smaller count means the log restarted.
let done = 0;
const timer = setInterval(() => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    const checkpointed = Math.max(0, result.checkpointed);
    let copied = checkpointed >= done ? checkpointed - done : checkpointed;
    done = checkpointed;
    if (logBytes() > workerData.keepBytes) {
      // Waits a moment for the writer in progress; busy (a writer or reader still there): the next tick tries again.
      db.pragma('busy_timeout = ' + workerData.truncateWaitMs);
      const [truncated] = db.pragma('wal_checkpoint(TRUNCATE)');
      db.pragma('busy_timeout = 0');
      if (truncated.busy === 0) {
        copied += Math.max(0, result.log - checkpointed);
        done = 0;
        parentPort.postMessage({ truncated: true });
      }
    }
    if (copied > 0) parentPort.postMessage({ checkpointed: copied });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** How long a write waits, at most, for the log past half the limit to be checkpointed (the event loop with it). */
const GUARD_WAIT_MS = 5_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * The commit-side bound, called before every write on the server's connection: when the log is past half of
 * `limitBytes`, checkpoints it on the connection itself until everything is copied, so that the write starts
 * the log over (and journal_size_limit cuts the file back at its commit). SQLite's own checkpoint on commit
 * is not enough: it gives up at once, busy, while another connection checkpoints, and the thread's
 * checkpoint (its TRUNCATE waiting for the writer, the copy and the sync) can hold that for seconds when
 * the machine is loaded, while commits keep appending (the log reached 10 MB under an 8 MiB cap). So this
 * waits, 2 ms at a time, at most GUARD_WAIT_MS: a log that has filled half the cap holds back the writes
 * until it is copied, rather than grow. A file-size check (a stat) costs microseconds.
 */
export function logGuard(database: SqliteDatabase, path: string, limitBytes: number): () => void {
  const halfBytes = limitBytes / 2;
  return () => {
    if (walFileBytes(path) <= halfBytes) return;
    const deadline = Date.now() + GUARD_WAIT_MS;
    for (;;) {
      const [result] = database.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
      if (result!.busy === 0 && result!.checkpointed >= result!.log) return;
      // Another connection's reader or checkpoint holds the log: the write goes ahead past the deadline.
      if (Date.now() >= deadline) return;
      Atomics.wait(pause, 0, 0, 2);
    }
  };
}

function walFileBytes(path: string): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

/**
 * Leaves checkpoints on commit for `database` (the server's connection to the SQLite file at `path`) only
 * for a log past half of `limitBytes`, and runs them in a worker thread instead, which also empties a log
 * past a quarter of it. If a checkpoint fails or the thread exits, commits checkpoint again as SQLite's
 * default has them, so the log never grows without bound. Answers the function that stops the thread (the
 * connection's last close then checkpoints what is left, as SQLite always does).
 */
export function checkpointInBackground(database: SqliteDatabase, path: string, events: CheckpointEvents = {}, limitBytes = WAL_LIMIT_MB * 2 ** 20): () => Promise<void> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const keepBytes = walKeepBytes(limitBytes);
  const worker = new Worker(THREAD, { eval: true, workerData: { driver, path, everyMs: CHECKPOINT_EVERY_MS, keepBytes, truncateWaitMs: TRUNCATE_WAIT_MS } });
  const pageSize = database.pragma('page_size', { simple: true }) as number;
  database.pragma(`wal_autocheckpoint = ${Math.max(AUTOCHECKPOINT_PAGES, Math.floor(limitBytes / 2 / frameBytes(pageSize)))}`);
  let stopping = false;
  const restoreOnCommit = () => {
    if (database.open) database.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  worker.on('message', (message: { checkpointed?: number; truncated?: boolean; error?: string }) => {
    if (message.checkpointed) events.checkpointed?.(message.checkpointed);
    if (message.truncated) events.truncated?.();
    if (message.error === undefined) return;
    // A checkpoint that fails (a full disk, an I/O error) would fail again: commits take them over.
    restoreOnCommit();
    events.failed?.(new Error(message.error));
    void worker.terminate();
  });
  worker.on('error', (error) => {
    restoreOnCommit();
    events.failed?.(error);
  });
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      if (!stopping) restoreOnCommit();
      resolve();
    }),
  );
  // The thread must not keep alive a process that has nothing else to do (a server whose listen failed, a
  // test): after the listeners, since attaching a 'message' listener refs the worker again.
  worker.unref();
  return async () => {
    stopping = true;
    restoreOnCommit();
    // Held until it has closed its connection, even in a process with nothing else left to do.
    worker.ref();
    worker.postMessage('stop');
    await exited;
  };
}
