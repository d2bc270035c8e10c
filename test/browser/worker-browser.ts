import { readdirSync, readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from 'playwright-core';
import { onWorkerEnd, workerProcesses } from '../helpers/worker-processes.js';
import { findChromium } from './harness.js';

// One Chromium per vitest worker and set of launch flags, as sharedServer keeps one server per environment:
// launching one costs 1-2 s of CPU, more than many a page test spends. The files of a worker that runs
// several in a row (test/suite.mjs SHARED) take it one after another; each works in browser contexts of
// its own (a context is a fresh profile: its own cookies, storage and cache), which it closes when done.
// Its process is counted among the worker's kept processes, so file-times.ts charges each file the
// Chromium CPU spent during it.

const kept = new Map<string, Promise<Browser>>();
let closing = false;

/** The worker's Chromium launched with `args` (and --disable-dev-shm-usage): started on first use, closed with the worker. */
export async function workerBrowser(args: string[] = []): Promise<Browser> {
  const flags = [...new Set([...args, '--disable-dev-shm-usage'])];
  const key = JSON.stringify(flags);
  let launching = kept.get(key);
  if (launching && !(await launching.then((b) => b.isConnected(), () => false))) launching = undefined;
  if (!launching) {
    const before = childPids();
    const started = chromium.launch({ executablePath: findChromium(), args: flags });
    launching = started.then((browser) => {
      for (const pid of childPids()) if (!before.has(pid)) workerProcesses.add(pid);
      return browser;
    });
    kept.set(key, launching);
    launching.catch(() => kept.delete(key));
    if (!closing) onWorkerEnd(closeAll);
    closing = true;
  }
  return launching;
}

async function closeAll(): Promise<void> {
  const browsers = await Promise.allSettled([...kept.values()]);
  kept.clear();
  await Promise.allSettled(browsers.map((b) => (b.status === 'fulfilled' ? b.value.close() : undefined)));
}

/**
 * A file's share of a worker's browser: the contexts it opens, all closed by close() (its afterAll), so
 * no page of one file lives on into the next.
 */
export function contextsOf(browser: Browser): { open(options?: BrowserContextOptions): Promise<BrowserContext>; close(): Promise<void> } {
  const open: BrowserContext[] = [];
  return {
    async open(options) {
      const context = await browser.newContext(options);
      open.push(context);
      return context;
    },
    async close() {
      await Promise.allSettled(open.splice(0).map((context) => context.close()));
    },
  };
}

/** The ids of this process's child processes (from /proc; empty off Linux). */
function childPids(): Set<number> {
  const pids = new Set<number>();
  try {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        // The parent's id: the second field after the command name (which may hold spaces).
        if (Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === process.pid) pids.add(Number(name));
      } catch {
        // ended meanwhile
      }
    }
  } catch {
    // no /proc
  }
  return pids;
}
