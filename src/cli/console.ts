import type { Command } from 'commander';
import * as consoleApp from '../services/management/console-app.js';
import { appsDeps } from './apps.js';
import { print, withDeps } from './shared.js';
import type { Cli } from './io.js';

// `gatehouse console ...` and `gatehouse operator ...` (docs/management.md).

export function registerConsoleCommands(program: Command, cli: Cli): void {
  const command = program.command('console').description('the built-in console app');
  command
    .command('info')
    .description('the console app: its id, publishable key and address')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      print(cli, await withDeps(cli, (deps) => consoleApp.consoleInfo(appsDeps(deps), deps.config.publicBaseUrl)), flags.json);
    });
  command
    .command('setup-link')
    .description('a fresh first-run setup link (single use, 24 hours): whoever opens it signed in becomes an operator')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      const link = await withDeps(cli, (deps) => consoleApp.newSetupLink(deps, deps.config.publicBaseUrl));
      if (flags.json) return print(cli, link, true);
      cli.stdout.write(`${link.url}\n`);
    });

  const operator = program.command('operator').description('console users who reach every tenant');
  operator
    .command('add')
    .requiredOption('--email <email>', "the console user's email")
    .option('--json', 'print JSON')
    .action(async (flags: { email: string; json?: boolean }) => {
      print(cli, await withDeps(cli, (deps) => consoleApp.addOperator(deps, flags.email)), flags.json);
    });
  operator
    .command('remove')
    .requiredOption('--email <email>', "the console user's email")
    .option('--json', 'print JSON')
    .action(async (flags: { email: string; json?: boolean }) => {
      print(cli, await withDeps(cli, (deps) => consoleApp.removeOperator(deps, flags.email)), flags.json);
    });
  operator
    .command('list')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      const { operators } = await withDeps(cli, (deps) => consoleApp.listOperators(deps));
      if (flags.json) return print(cli, { operators }, true);
      for (const o of operators) cli.stdout.write(`${o.user_id}  ${o.email ?? ''}  ${o.created_at}\n`);
    });
}
