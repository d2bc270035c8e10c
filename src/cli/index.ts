import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/index.js';
import { ApiError } from '../errors.js';
import { registerAppCommands } from './apps.js';
import { registerBillingCommands } from './billing.js';
import { registerConsoleCommands } from './console.js';
import { registerHashcashCommands } from './hashcash.js';
import { registerOperationsCommands } from './operations.js';
import { registerServerCommands } from './server.js';
import { UsageError } from './shared.js';
import { registerTenantCommands } from './tenants.js';
import { registerUserCommands } from './users.js';
import { RELEASE } from '../release.js';

// The `gatehouse` command: one file per command group, each command a thin call into the services the
// routes use (docs/operations.md).

export function buildProgram(): Command {
  const program = new Command('gatehouse')
    .description('Gatehouse: a self-hostable, multi-tenant authentication service')
    .version(RELEASE.name, '-V, --version', 'print the release (package version+commit, as GET /v1/health names it)')
    .showHelpAfterError()
    .exitOverride();
  registerServerCommands(program);
  registerTenantCommands(program);
  registerAppCommands(program);
  registerHashcashCommands(program);
  registerBillingCommands(program);
  registerUserCommands(program);
  registerOperationsCommands(program);
  registerConsoleCommands(program);
  return program;
}

/** Runs the CLI; turns every failure into a message on stderr and an exit code. */
export async function run(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.exitCode = exitCodeFor(error);
  }
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander already printed its message (and help for usage errors).
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    return 2;
  }
  if (error instanceof ConfigError) {
    process.stderr.write(`gatehouse: configuration error: ${error.message}\n`);
    return 2;
  }
  if (error instanceof UsageError) {
    process.stderr.write(`gatehouse: ${error.message}\n`);
    return 2;
  }
  if (error instanceof ApiError) {
    process.stderr.write(`gatehouse: ${error.detail}\n`);
    return error.status === 400 ? 2 : 1;
  }
  process.stderr.write(`gatehouse: ${(error as Error)?.message ?? String(error)}\n`);
  return 1;
}
