import type { Command } from 'commander';
import * as consoleApp from '../services/management/console-app.js';
import { appsDeps } from './apps.js';
import { printAnswer } from './shared.js';
import type { Cli } from './io.js';

// `gatehouse console ...` and `gatehouse operator ...` (docs/management.md).

export function registerConsoleCommands(program: Command, cli: Cli): void {
  const command = program.command('console').description('the built-in console app');
  command
    .command('info')
    .description('the console app: its id, publishable key and address')
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) => printAnswer(cli, flags.json, (deps) => consoleApp.consoleInfo(appsDeps(deps), deps.config.publicBaseUrl)));
  command
    .command('setup-link')
    .description('a fresh first-run setup link (single use, 24 hours): whoever opens it signed in becomes an operator')
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) =>
      printAnswer(cli, flags.json, (deps) => consoleApp.newSetupLink(deps, deps.config.publicBaseUrl), (link) => cli.stdout.write(`${link.url}\n`)),
    );

  const operator = program.command('operator').description('console users who reach every tenant');
  for (const [verb, change] of [['add', consoleApp.addOperator], ['remove', consoleApp.removeOperator]] as const) {
    operator
      .command(verb)
      .requiredOption('--email <email>', "the console user's email")
      .option('--json', 'print JSON')
      .action((flags: { email: string; json?: boolean }) => printAnswer<object>(cli, flags.json, (deps) => change(deps, flags.email)));
  }
  operator
    .command('list')
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) =>
      printAnswer(cli, flags.json, (deps) => consoleApp.listOperators(deps), ({ operators }) => {
        for (const o of operators) cli.stdout.write(`${o.user_id}  ${o.email ?? ''}  ${o.created_at}\n`);
      }),
    );
}
