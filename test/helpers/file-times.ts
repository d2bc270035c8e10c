// A setup file (vitest.config.ts): when GATEHOUSE_TEST_TIMES_DIR is set (test/run.mjs sets it), records the
// wall time and CPU one test file took: the vitest worker's own and that of the processes it spawned and reaped (servers,
// CLI calls), read from /proc/self/stat at the file's start and end. test/run.mjs joins these lines with the
// wall times of vitest's report into test-results/times-<db>.json.
import { appendFileSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

const dir = process.env.GATEHOUSE_TEST_TIMES_DIR;

/** Seconds of CPU (user + system) of this process and of its reaped children, or undefined off Linux. */
function cpuSeconds(): { self: number; children: number } | undefined {
  try {
    // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    const ticks = 100; // USER_HZ on Linux
    return { self: (Number(fields[11]) + Number(fields[12])) / ticks, children: (Number(fields[13]) + Number(fields[14])) / ticks };
  } catch {
    return undefined;
  }
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
    const line = { file: relative(process.cwd(), file), wallSeconds: (Date.now() - loadedAt) / 1000, cpuSelf: end.self - start.self, cpuChildren: end.children - start.children };
    appendFileSync(join(dir, `cpu-${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
  });
}
