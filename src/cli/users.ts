import { OPERATOR_CONTEXT } from '../services/events/types.js';
import type { Command } from 'commander';
import { deleteUser } from '../services/accounts/user-deletion.js';
import { exportedUser, exportUser } from '../services/accounts/user-export.js';
import { updateUserByServer, type ServerUserChanges } from '../services/accounts/user-updates.js';
import { getUser, listUsers } from '../services/accounts/users.js';
import { notFound } from '../errors.js';
import { listUserFactors, resetUserFactors } from '../services/mfa/admin.js';
import { findApplication } from '../store/repos/applications.js';
import type { Deps } from '../deps.js';
import { jsonObject, onOffOption, print, UsageError, wholeNumber, withDeps } from './shared.js';
import { registerImportCommand } from './user-import.js';
import { writeDrained, type Cli } from './io.js';

// `gatehouse user ...` (docs/cli.md, docs/users.md and docs/privacy.md): the same services as GET /v1/users,
// GET and PATCH /v1/users/{id}, DELETE /v1/users/{id} and GET /v1/users/{id}/export. An unknown app or user (or a user of another app) exits 1 with "user not found".


interface UpdateFlags {
  email?: string;
  emailVerified?: boolean;
  publicMetadata?: Record<string, unknown>;
  privateMetadata?: Record<string, unknown>;
  unsafeMetadata?: Record<string, unknown>;
  banned?: boolean;
  locale?: string;
  json?: boolean;
}

/** The flags as PATCH /v1/users/{id}'s body; at least one is needed. */
function changesOf(flags: UpdateFlags): ServerUserChanges {
  const changes: ServerUserChanges = {
    email: flags.email,
    email_verified: flags.emailVerified,
    public_metadata: flags.publicMetadata,
    private_metadata: flags.privateMetadata,
    unsafe_metadata: flags.unsafeMetadata,
    banned: flags.banned,
    // "" forgets the locale (English).
    locale: flags.locale === undefined ? undefined : flags.locale === '' ? null : flags.locale,
  };
  if (Object.values(changes).every((value) => value === undefined)) throw new UsageError('nothing to change: give at least one of the flags');
  return changes;
}

export function registerUserCommands(program: Command, cli: Cli): void {
  const user = program.command('user').description("list, show, change, delete or export an application's users, or see and reset their second factors");
  /** The app, live; an unknown one answers as an unknown user does. */
  const appOf = async (deps: Deps, appId: string) => {
    const app = await findApplication(deps.db, appId);
    if (!app) throw notFound('user not found');
    return app;
  };
  registerImportCommand(user, cli);
  user
    .command('list')
    .argument('<app_id>')
    .description("a page of the app's users, newest first, as GET /v1/users → {users, total, next_cursor}")
    .option('--email <email>', 'exact match, case-insensitive')
    .option('--limit <n>', 'users per page, 1 to 200', wholeNumber, 50)
    .option('--cursor <cursor>', 'next_cursor of the previous page')
    .option('--json', 'print JSON')
    .action(async (appId: string, flags: { email?: string; limit: number; cursor?: string; json?: boolean }) => {
      if (flags.limit < 1 || flags.limit > 200) throw new UsageError('--limit must be 1 to 200');
      const page = await withDeps(cli, async (deps) => {
        await appOf(deps, appId);
        return listUsers(deps, appId, { limit: flags.limit, offset: 0, email: flags.email, cursor: flags.cursor });
      });
      print(cli, { users: page.users.map(exportedUser), total: page.total, next_cursor: page.nextCursor }, flags.json);
    });
  user
    .command('show')
    .argument('<app_id>')
    .argument('<user_id>')
    .description('one user, as GET /v1/users/{id} (the three metadata objects and banned included)')
    .option('--json', 'print JSON')
    .action(async (appId: string, userId: string, flags: { json?: boolean }) => {
      print(cli, exportedUser(await withDeps(cli, async (deps) => getUser(deps, (await appOf(deps, appId)).id, userId))), flags.json);
    });
  user
    .command('update')
    .argument('<app_id>')
    .argument('<user_id>')
    .description('change the user as PATCH /v1/users/{id}, in one transaction; --banned on ends their sessions at once')
    .option('--email <email>', 'the new address (unverified unless --email-verified on)')
    .addOption(onOffOption('--email-verified', 'whether the email counts as verified'))
    .option('--public-metadata <json>', 'replace public_metadata (a JSON object, at most 8 KiB)', jsonObject)
    .option('--private-metadata <json>', 'replace private_metadata (a JSON object, at most 8 KiB)', jsonObject)
    .option('--unsafe-metadata <json>', 'replace unsafe_metadata (a JSON object, at most 8 KiB)', jsonObject)
    .addOption(onOffOption('--banned', 'on: sessions end and every sign-in is refused (user_banned); off: sign-in works again'))
    .option('--locale <tag>', 'the language of their emails, a BCP 47 tag such as fr; "" for English (docs/email.md)')
    .option('--json', 'print JSON')
    .action(async (appId: string, userId: string, flags: UpdateFlags) => {
      const changes = changesOf(flags);
      print(cli, exportedUser(await withDeps(cli, async (deps) => updateUserByServer(deps, await appOf(deps, appId), userId, changes, OPERATOR_CONTEXT))), flags.json);
    });
  user
    .command('factors')
    .argument('<app_id>')
    .argument('<user_id>')
    .description("list the user's second factors (TOTP, passkeys) and unused recovery codes left, as GET /v1/users/{id}/factors")
    .option('--json', 'print JSON')
    .action(async (appId: string, userId: string, flags: { json?: boolean }) => {
      print(cli, await withDeps(cli, async (deps) => listUserFactors(deps, await appOf(deps, appId), userId)), flags.json);
    });
  user
    .command('reset-factors')
    .argument('<app_id>')
    .argument('<user_id>')
    .description('remove every second factor and recovery code of the user (they lost them all); the user is emailed a notice')
    .option('--json', 'print JSON')
    .action(async (appId: string, userId: string, flags: { json?: boolean }) => {
      print(cli, await withDeps(cli, async (deps) => resetUserFactors(deps, await appOf(deps, appId), userId, OPERATOR_CONTEXT)), flags.json);
    });
  user
    .command('delete')
    .argument('<app_id>')
    .argument('<user_id>')
    .description('delete the user and everything they own (sessions, identities, rows, objects), in one transaction')
    .option('--json', 'print JSON')
    .action(async (appId: string, userId: string, flags: { json?: boolean }) => {
      await withDeps(cli, async (deps) => deleteUser(deps, await appOf(deps, appId), userId, OPERATOR_CONTEXT));
      print(cli, { status: 'deleted' }, flags.json);
    });
  user
    .command('export')
    .argument('<app_id>')
    .argument('<user_id>')
    .description("print the user's export document (JSON) on stdout, written as it is read")
    .option('--json', 'print JSON (the document is always JSON)')
    .action(async (appId: string, userId: string) => {
      await withDeps(cli, async (deps) => {
        for await (const chunk of await exportUser(deps, await appOf(deps, appId), userId, OPERATOR_CONTEXT)) {
          await writeDrained(cli.stdout, chunk);
        }
        cli.stdout.write('\n');
      });
    });
}
