import type { CliResult } from './server.js';

// `gatehouse ...` run in the test process: the built CLI's run() (dist/, as fixtures' built() loads it) with
// the server's environment and working directory, its output collected. About 0.3 s of CPU less per call
// than a CLI process (node's start and the CLI's module loading). Files whose subject is the CLI process
// itself keep a real one (startServer's cliProcess option, TestServer.cliProcess; docs/testing.md).

type Run = typeof import('../../src/cli/index.js').run;

const CLI = new URL('../../dist/src/cli/index.js', import.meta.url).href;
let loading: Promise<Run> | undefined;
/** The run before the next: one at a time (see runCliInProcess). */
let previous: Promise<unknown> = Promise.resolve();

/**
 * What runCli gives for `args`, run by run() in this process: `env` complete (cleanEnv and the server's),
 * `cwd` the server's directory. Runs go one after another: on SQLite each opens its own connection on this
 * one thread, and one waiting for another's write lock (better-sqlite3 waits synchronously) would block the
 * very thread that holds it. Commands racing each other are a test of processes: cliProcess().
 */
export function runCliInProcess(args: string[], env: Record<string, string>, cwd: string): Promise<CliResult> {
  const result = previous.then(() => runNow(args, env, cwd));
  previous = result.catch(() => undefined);
  return result;
}

async function runNow(args: string[], env: Record<string, string>, cwd: string): Promise<CliResult> {
  const run = await (loading ??= import(/* @vite-ignore */ CLI).then((cli: { run: Run }) => cli.run));
  let stdout = '';
  let stderr = '';
  const code = await run(['node', 'gatehouse', ...args], {
    env: { ...env },
    cwd,
    stdout: { write: (text: string) => ((stdout += text), true) },
    stderr: { write: (text: string) => ((stderr += text), true) },
    // A command reading stdin (hashcash solve --challenge-json -) finds it empty, as execFile's child does.
    stdin: (async function* () {})(),
  });
  return { code, stdout, stderr };
}
