// A setup file (vitest.config.ts): when GATEHOUSE_TEST_TIMES_DIR is set (test/run.mjs sets it), records the
// wall time and CPU one test file took: the vitest worker's own and that of the processes it spawned and reaped (servers,
// CLI calls), read from /proc/self/stat at the file's start and end, and what the servers the worker keeps
// across files (sharedServer) spent meanwhile. test/run.mjs joins these lines with the
// wall times of vitest's report into test-results/times-<db>.json.
import { appendFileSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { workerProcesses } from './worker-processes.js';

const dir = process.env.GATEHOUSE_TEST_TIMES_DIR;

const TICKS = 100; // USER_HZ on Linux

/** The fields of /proc/PID/stat after the command name (which may hold spaces: split after its closing parenthesis). */
function stat(pid: number | 'self'): string[] {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
}

/**
 * Seconds of CPU (user + system) of this process and of its reaped children, or undefined off Linux; `kept`
 * by process id: the servers and browsers the worker keeps across files (worker-processes.ts), which no file reaps.
 */
function cpuSeconds(): { self: number; children: number; kept: Map<number, number> } | undefined {
  try {
    const fields = stat('self');
    const kept = new Map<number, number>();
    for (const pid of workerProcesses) {
      try {
        const f = stat(pid);
        // Its own CPU and its reaped children's (a kept Chromium's renderers of closed pages).
        kept.set(pid, (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICKS);
      } catch {
        // ended
      }
    }
    return { self: (Number(fields[11]) + Number(fields[12])) / TICKS, children: (Number(fields[13]) + Number(fields[14])) / TICKS, kept };
  } catch {
    return undefined;
  }
}

/** CPU the kept servers spent between two readings (one started during the file counts from zero). */
function keptSpent(start: Map<number, number>, end: Map<number, number>): number {
  let spent = 0;
  for (const [pid, seconds] of end) spent += seconds - (start.get(pid) ?? 0);
  return spent;
}

if (dir) {
  // This module loads before the test file is imported: the file's wall time counts its import too.
  const loadedAt = Date.now();
  let start: ReturnType<typeof cpuSeconds>;
  // Registered before the file's own hooks: beforeAll runs first and afterAll last, so the file's
  // servers are stopped (and reaped) by then.
  beforeAll(() => {
    start = cpuSeconds();
  });
  afterAll(() => {
    const end = cpuSeconds();
    const file = expect.getState().testPath;
    if (!start || !end || !file) return;
    const line = { file: relative(process.cwd(), file), wallSeconds: (Date.now() - loadedAt) / 1000, cpuSelf: end.self - start.self, cpuChildren: end.children - start.children + keptSpent(start.kept, end.kept) };
    appendFileSync(join(dir, `cpu-${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
  });
}
