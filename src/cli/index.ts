import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/index.js';
import { ApiError } from '../errors.js';
import { registerAppCommands } from './apps.js';
import { registerBillingCommands } from './billing.js';
import { registerConsoleCommands } from './console.js';
import { registerHashcashCommands } from './hashcash.js';
import { cliOf, type Cli, type CliIo } from './io.js';
import { registerOperationsCommands } from './operations.js';
import { registerServerCommands } from './server.js';
import { UsageError } from './shared.js';
import { registerTenantCommands } from './tenants.js';
import { registerUserCommands } from './users.js';
import { RELEASE } from '../release.js';

export type { CliIo, Output } from './io.js';

// The `gatehouse` command: one file per command group, each command a thin call into the services the
// routes use (docs/operations.md). Every command reads its environment and writes its output through the
// run's Cli (io.ts), so a program may run commands in its own process, several at once.

export function buildProgram(cli: Cli = cliOf()): Command {
  const program = new Command('gatehouse')
    .description('Gatehouse: a self-hostable, multi-tenant authentication service')
    .version(RELEASE.name, '-V, --version', 'print the release (package version+commit, as GET /v1/health names it)')
    .showHelpAfterError()
    .exitOverride();
  // Commander writes to, and sizes its help for, the process's streams unless told: a run of its own writes
  // its help and errors to the run's streams, uncoloured, 80 columns wide (as to a pipe).
  if (!cli.ownProcess) {
    program.configureOutput({
      writeOut: (text) => void cli.stdout.write(text),
      writeErr: (text) => void cli.stderr.write(text),
      getOutHelpWidth: () => 80,
      getErrHelpWidth: () => 80,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    });
  }
  registerServerCommands(program, cli);
  registerTenantCommands(program, cli);
  registerAppCommands(program, cli);
  registerHashcashCommands(program, cli);
  registerBillingCommands(program, cli);
  registerUserCommands(program, cli);
  registerOperationsCommands(program, cli);
  registerConsoleCommands(program, cli);
  return program;
}

/**
 * Runs the CLI on `argv` (as process.argv: node, the script, then the arguments) and returns its exit code;
 * every failure becomes a message on stderr. Without `io` it is the process's own run (bin/gatehouse.js):
 * process.env, process.stdout and process.stderr, the working directory. `serve` runs only so.
 */
export async function run(argv: string[], io?: CliIo): Promise<number> {
  const cli = cliOf(io);
  const program = buildProgram(cli);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    cli.exitCode = exitCodeFor(cli, error);
  }
  return cli.exitCode;
}

function exitCodeFor(cli: Cli, error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander already printed its message (and help for usage errors).
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    return 2;
  }
  if (error instanceof ConfigError) {
    cli.stderr.write(`gatehouse: configuration error: ${error.message}\n`);
    return 2;
  }
  if (error instanceof UsageError) {
    cli.stderr.write(`gatehouse: ${error.message}\n`);
    return 2;
  }
  if (error instanceof ApiError) {
    cli.stderr.write(`gatehouse: ${error.detail}\n`);
    return error.status === 400 ? 2 : 1;
  }
  cli.stderr.write(`gatehouse: ${(error as Error)?.message ?? String(error)}\n`);
  return 1;
}
