import { once } from 'node:events';
import type { Command } from 'commander';
import { deleteUser } from '../services/accounts/user-deletion.js';
import { exportUser } from '../services/accounts/user-export.js';
import { notFound } from '../errors.js';
import { listUserFactors, resetUserFactors } from '../services/mfa/admin.js';
import { findApplication } from '../store/repos/applications.js';
import type { Deps } from '../deps.js';
import { print, withDeps } from './shared.js';

// `gatehouse user ...` (docs/operations.md and docs/privacy.md): the same services as DELETE /v1/users/{id} and
// GET /v1/users/{id}/export. An unknown app or user (or a user of another app) exits 1 with "user not found".

export function registerUserCommands(program: Command): void {
  const user = program.command('user').description("delete or export one of an application's users, or see and reset their second factors");
  /** The app, live; an unknown one answers as an unknown user does. */
  const appOf = async (deps: Deps, appId: string) => {
    const app = await findApplication(deps.db, appId);
    if (!app) throw notFound('user not found');
    return app;
  };
  user
    .command('factors')
    .argument('<app_id>')
    .argument('<user_id>')
    .description("list the user's second factors (TOTP, passkeys) and unused recovery codes left, as GET /v1/users/{id}/factors")
    .option('--json', 'print JSON')
    .action(async (appId: string, userId: string, flags: { json?: boolean }) => {
      print(await withDeps(async (deps) => listUserFactors(deps, await appOf(deps, appId), userId)), flags.json);
    });
  user
    .command('reset-factors')
    .argument('<app_id>')
    .argument('<user_id>')
    .description('remove every second factor and recovery code of the user (they lost them all); the user is emailed a notice')
    .option('--json', 'print JSON')
    .action(async (appId: string, userId: string, flags: { json?: boolean }) => {
      print(await withDeps(async (deps) => resetUserFactors(deps, await appOf(deps, appId), userId)), flags.json);
    });
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
