import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The suite's own rule (docs/testing.md): no wall-clock wait over 1 s in a test without a comment that says
// why. Time under test comes from the injected clock (src/clock.ts) or a documented test-only setting; a
// real wait is for what has no clock (an outage, a process that must die), and says so. A sleep here is
// `setTimeout(r, N)` with a resolver as its callback, `setTimeout(N)` of node:timers/promises, or
// `sleep(N)`/`delay(N)`, N a number literal; the comment is on its line or on the lines just above it.

const ROOT = resolve(import.meta.dirname, '../..');
const LIMIT_MS = 1_000;
const SLEEP = /(?<![.\w])(?:setTimeout\(\s*(?:r|res|resolve|done|next)\s*,\s*([\d_]+)\s*\)|(?:setTimeout|sleep|delay|wait)\(\s*([\d_]+)\s*[,)])/g;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(path);
    return /\.(ts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

/** Sleeps over the limit with no comment on their line or in the comment block right above it. */
export function unexplainedSleeps(source: string): { line: number; ms: number }[] {
  const lines = source.split('\n');
  const found: { line: number; ms: number }[] = [];
  lines.forEach((text, index) => {
    for (const match of text.matchAll(SLEEP)) {
      const ms = Number((match[1] ?? match[2]).replaceAll('_', ''));
      // A bound raced against what it waits for ends early: it is a time-out, not a sleep.
      if (ms <= LIMIT_MS || text.includes('Promise.race')) continue;
      const sameLine = text.slice(match.index + match[0].length).includes('//');
      const above = index > 0 && /^\s*(\/\/|\*|\/\*)/.test(lines[index - 1]);
      if (!sameLine && !above) found.push({ line: index + 1, ms });
    }
  });
  return found;
}

describe('the suite: no unexplained sleeps', () => {
  it('finds a bare 2-second sleep and accepts one whose comment says why', () => {
    expect(unexplainedSleeps('x;\n    await new Promise((r) => setTimeout(r, 2_000));\n')).toEqual([{ line: 2, ms: 2000 }]);
    expect(unexplainedSleeps('await sleep(1500);')).toEqual([{ line: 1, ms: 1500 }]);
    expect(unexplainedSleeps('// the relay has no clock: a real outage\nawait new Promise((r) => setTimeout(r, 20_000));')).toEqual([]);
    expect(unexplainedSleeps('await new Promise((r) => setTimeout(r, 1_000));')).toEqual([]);
    expect(unexplainedSleeps('await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);')).toEqual([]);
    expect(unexplainedSleeps('socket.setTimeout(2000);')).toEqual([]);
    expect(unexplainedSleeps("const timer = setTimeout(() => reject(new Error('late')), 30_000);")).toEqual([]);
  });

  it('no file under test/ or src/**/*.test.ts waits over 1 s without a comment saying why', () => {
    const candidates = [...files(join(ROOT, 'test')), ...files(join(ROOT, 'src')).filter((path) => path.endsWith('.test.ts'))];
    const offenders = candidates
      .filter((path) => !path.endsWith('sleeps.test.ts'))
      .flatMap((path) => unexplainedSleeps(readFileSync(path, 'utf8')).map(({ line, ms }) => `${relative(ROOT, path)}:${line} waits ${ms} ms`));
    expect(offenders).toEqual([]);
  });
});
