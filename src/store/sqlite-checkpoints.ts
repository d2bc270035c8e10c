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

/** How often the thread checkpoints (a checkpoint with nothing to copy costs microseconds). */
export const CHECKPOINT_EVERY_MS = 200;
/** SQLite's own default: the page count at which a commit checkpoints, restored if the thread goes away. */
const AUTOCHECKPOINT_PAGES = 1000;

/** What the checkpoint thread reports: checkpoints that copied log frames (page writes), and failures. */
export interface CheckpointEvents {
  checkpointed?(frames: number): void;
  failed?(error: Error): void;
}

// The thread's code: a CommonJS script (eval), so it needs no file of its own beside src/ and dist/.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 0');
// SQLite answers the frames of the current log checkpointed so far; a smaller count means the log restarted.
let done = 0;
const timer = setInterval(() => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    const checkpointed = Math.max(0, result.checkpointed);
    const copied = checkpointed >= done ? checkpointed - done : checkpointed;
    done = checkpointed;
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

/**
 * Turns off checkpoints on commit for `database` (the server's connection to the SQLite file at `path`) and
 * runs them in a worker thread instead. If a checkpoint fails or the thread exits, commits checkpoint again
 * as SQLite's default has them, so the log never grows without bound. Answers the function that stops the
 * thread (the connection's last close then checkpoints what is left, as SQLite always does).
 */
export function checkpointInBackground(database: SqliteDatabase, path: string, events: CheckpointEvents = {}): () => Promise<void> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(THREAD, { eval: true, workerData: { driver, path, everyMs: CHECKPOINT_EVERY_MS } });
  database.pragma('wal_autocheckpoint = 0');
  let stopping = false;
  const restoreOnCommit = () => {
    if (database.open) database.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  worker.on('message', (message: { checkpointed?: number; error?: string }) => {
    if (message.checkpointed) events.checkpointed?.(message.checkpointed);
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
