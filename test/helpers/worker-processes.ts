// What a vitest worker keeps across the files it runs (test/suite.mjs SHARED: isolate: false): the servers
// sharedServer (server.ts) keeps, the Chromium workerBrowser (test/browser/worker-browser.ts) keeps, and the
// clean-up that ends them with the worker. No file reaps a kept process, so test/helpers/file-times.ts
// counts the CPU one spends during each file as that file's.

/** Process ids of the servers and browsers this worker keeps running between files. */
export const workerProcesses = new Set<number>();

type WorkerState = { onCleanup?: (listener: () => Promise<void>) => void };

/**
 * Runs `end` as vitest tears this worker down (awaited: the hook its worker-scoped fixtures use). Kept
 * processes still alive when the worker exits anyway (that hook missing, or the worker killed) are killed.
 */
export function onWorkerEnd(end: () => Promise<void>): void {
  const worker = (globalThis as { __vitest_worker__?: WorkerState }).__vitest_worker__;
  worker?.onCleanup?.(end);
  if (!killOnExit) {
    killOnExit = true;
    process.once('exit', () => {
      for (const pid of workerProcesses) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    });
  }
}
let killOnExit = false;
