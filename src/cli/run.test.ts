import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RELEASE } from '../release.js';
import { run, type CliIo } from './index.js';

// run(argv, io) in this process: each run's environment, working directory, output and exit code are its
// own, and nothing of the process's (process.env, process.exitCode) changes.

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function directory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-run-'));
  dirs.push(dir);
  return dir;
}

/** An io writing into strings, with `stdin` its standard input. */
function captured(io: Omit<CliIo, 'stdout' | 'stderr'> = {}, stdin = '') {
  const out = { stdout: '', stderr: '' };
  const given: CliIo = {
    env: {},
    ...io,
    stdout: { write: (text: string) => (out.stdout += text) },
    stderr: { write: (text: string) => (out.stderr += text) },
    stdin: (async function* () {
      if (stdin) yield Buffer.from(stdin);
    })(),
  };
  return { io: given, out };
}

const argv = (...args: string[]) => ['node', 'gatehouse', ...args];
const challenge = JSON.stringify({ challenge: 'run-test', difficulty: 3, params: { time_cost: 1, memory_cost: 64, parallelism: 1, hash_len: 32 } });

describe('run(argv, io)', () => {
  it('keeps the outputs and exit codes of runs at once apart, each in its own directory and environment', async () => {
    const missing = directory();
    // The directory's .env names the database: read into the run's copy, never into process.env.
    writeFileSync(join(missing, '.env'), 'DATABASE_URL=sqlite:data/elsewhere.db\n');
    const badFile = directory();
    writeFileSync(join(badFile, 'challenge.json'), '{ not json');
    const before = { exitCode: process.exitCode, databaseUrl: process.env.DATABASE_URL };

    const noDatabase = captured({ cwd: missing });
    const solving = captured({}, challenge);
    const unreadable = captured({ cwd: badFile });
    const codes = await Promise.all([
      run(argv('tenant', 'list'), noDatabase.io),
      run(argv('hashcash', 'solve', '--challenge-json', '-'), solving.io),
      run(argv('hashcash', 'solve', '--challenge-json', 'challenge.json'), unreadable.io),
    ]);

    expect(codes).toEqual([2, 0, 2]);
    expect(noDatabase.out).toEqual({ stdout: '', stderr: expect.stringContaining(`no Gatehouse database at the SQLite file ${join(missing, 'data/elsewhere.db')}`) });
    expect(JSON.parse(solving.out.stdout)).toEqual({ challenge: 'run-test', nonce: expect.stringMatching(/^\d+$/) });
    expect(solving.out.stderr).toMatch(/^solved in [\d.]+ s \(\d+ hashes, difficulty 3\)\n$/);
    expect(unreadable.out).toEqual({ stdout: '', stderr: expect.stringMatching(/^gatehouse: --challenge-json: .*JSON/) });
    expect({ exitCode: process.exitCode, databaseUrl: process.env.DATABASE_URL }).toEqual(before);
  });

  it("returns 2 for a bad flag, commander's message and the help on the run's stderr", async () => {
    const { io, out } = captured();
    expect(await run(argv('tenant', 'list', '--bogus'), io)).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/^error: unknown option '--bogus'\n/);
    expect(out.stderr).toContain('Usage: gatehouse tenant list [options]');
  });

  it("prints --version on the run's stdout and returns 0", async () => {
    const { io, out } = captured();
    expect(await run(argv('--version'), io)).toBe(0);
    expect(out).toEqual({ stdout: `${RELEASE.name}\n`, stderr: '' });
  });

  it('refuses serve, which listens and forks: it runs only as its own process', async () => {
    const { io, out } = captured({ cwd: directory() });
    expect(await run(argv('serve'), io)).toBe(2);
    expect(out.stderr).toBe('gatehouse: serve runs only as its own process (bin/gatehouse.js)\n');
  });
});
