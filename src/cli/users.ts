import { once } from 'node:events';
import type { Command } from 'commander';
import { deleteUser } from '../services/user-deletion.js';
import { exportUser } from '../services/user-export.js';
import { print, withDeps } from './shared.js';

// `gatehouse user ...` (contract.md sections 1 and 14): the same services as DELETE /v1/users/{id} and
// GET /v1/users/{id}/export. An unknown app or user (or a user of another app) exits 1 with "user not found".

export function registerUserCommands(program: Command): void {
  const user = program.command('user').description("delete or export one of an application's users");
  user
    .command('delete')
    .argument('<app_id>')
    .argument('<user_id>')
    .description('delete the user and everything they own (sessions, identities, rows, objects), in one transaction')
    .option('--json', 'print JSON')
    .action(async (appId: string, userId: string, flags: { json?: boolean }) => {
      await withDeps((deps) => deleteUser(deps, appId, userId));
      print({ status: 'deleted' }, flags.json);
    });
  user
    .command('export')
    .argument('<app_id>')
    .argument('<user_id>')
    .description("print the user's export document (JSON) on stdout, written as it is read")
    .option('--json', 'print JSON (the document is always JSON)')
    .action(async (appId: string, userId: string) => {
      await withDeps(async (deps) => {
        for await (const chunk of await exportUser(deps, appId, userId)) {
          if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
        }
        process.stdout.write('\n');
      });
    });
}
