import { Option, type Command } from 'commander';
import type { Deps } from '../deps.js';
import * as apps from '../services/apps/apps.js';
import * as listing from '../services/apps/listing.js';
import { markAppDeleted } from '../services/apps/deletion.js';
import { deleteAndPurge, deleteOptions, requireYes, type DeleteFlags } from './deletion.js';
import { registerEmailTemplateCommands } from './email-templates.js';
import { collect, jsonObject, onOffOption, printAnswer, usd, UsageError, wholeNumber } from './shared.js';
import type { Cli } from './io.js';

// `gatehouse app ...` (docs/operations.md): each command a thin call into services/apps/apps.ts.

/** The setting flags `app create` and `app update` take (the tests' fixtures parse app flags with them too). */
export function appSettingOptions(command: Command): Command {
  return command
    .option('--domain <host>', 'verified domain (frontend routes resolve the app from Host)')
    .option('--allowed-origin <url>', 'redirect and CORS allow-list entry (repeatable); replaces the whole list', collect)
    .addOption(new Option('--verification-method <method>', 'what sign-up emails carry').choices(['code', 'link', 'both']))
    .addOption(onOffOption('--passwords', 'allow password sign-up and sign-in'))
    .addOption(onOffOption('--hashcash', 'require proof-of-work on sign-up (default: HASHCASH_ENABLED)'))
    .option('--hashcash-difficulty <n>', 'leading zero bits, 0-32', wholeNumber)
    .option('--bot-min-usd <amount>', 'smallest donation a bot may register with', usd)
    .addOption(onOffOption('--link-landing', 'emailed links answer a one-button page that POSTs (default off: 302 at once)'))
    .addOption(onOffOption('--self-delete', 'users may delete their own account, DELETE /v1/me (default on)'))
    .addOption(new Option('--mfa <policy>', 'second factors: optional, or required (users without one may only enroll; docs/mfa.md)').choices(['optional', 'required']))
    .option('--tables-limit-bytes <n>', 'custom-table storage limit of this app (default: TABLES_STORAGE_LIMIT_BYTES)', wholeNumber)
    .option('--objects-limit-bytes <n>', 'object storage of the app in bytes (default OBJECTS_STORAGE_LIMIT_BYTES)', wholeNumber)
    .option('--token-claims <json>', 'custom access-token claims, a JSON template like {"role": "{{user.public_metadata.role}}"}; {} removes it (docs/users.md)', jsonObject)
    .addOption(onOffOption('--organizations', 'organisations, their members and data (default on; off: every organisation route is 404)'))
    .addOption(new Option('--org-creation <who>', 'who may create organisations: any signed-in user, or the server only (default users)').choices(['users', 'server']))
    .option('--email-from <mailbox>', 'sender of the app\'s emails, "Name <address>" or an address; "" returns to EMAIL_FROM (docs/email.md)')
    .option('--reply-to <mailbox>', 'Reply-To of the app\'s emails; "" removes it')
    .option('--cookie-domain <domain>', 'a parent domain of --domain that __session is set for, so your own API on another subdomain receives it; "" makes it host-only (docs/browser.md)');
}


export interface SettingFlags {
  domain?: string;
  clearDomain?: boolean;
  allowedOrigin?: string[];
  addAllowedOrigin?: string[];
  removeAllowedOrigin?: string[];
  verificationMethod?: 'code' | 'link' | 'both';
  passwords?: boolean;
  hashcash?: boolean;
  hashcashDifficulty?: number;
  botMinUsd?: number;
  linkLanding?: boolean;
  selfDelete?: boolean;
  mfa?: 'optional' | 'required';
  tablesLimitBytes?: number;
  objectsLimitBytes?: number;
  tokenClaims?: Record<string, unknown>;
  organizations?: boolean;
  orgCreation?: 'users' | 'server';
  emailFrom?: string;
  replyTo?: string;
  cookieDomain?: string;
  name?: string;
}

/** The service's settings from parsed flags: an absent flag leaves its setting to the default (create) or as it is (update). */
export function toSettings(flags: SettingFlags): apps.AppSettings & { name?: string } {
  return {
    domain: flags.clearDomain ? null : flags.domain,
    allowedOrigins: flags.allowedOrigin,
    addAllowedOrigins: flags.addAllowedOrigin,
    removeAllowedOrigins: flags.removeAllowedOrigin,
    verificationMethod: flags.verificationMethod,
    passwordsEnabled: flags.passwords,
    hashcashEnabled: flags.hashcash,
    hashcashDifficulty: flags.hashcashDifficulty,
    botMinUsd: flags.botMinUsd,
    linkLanding: flags.linkLanding,
    selfDelete: flags.selfDelete,
    mfa: flags.mfa,
    tablesLimitBytes: flags.tablesLimitBytes,
    objectsLimitBytes: flags.objectsLimitBytes,
    tokenClaims: flags.tokenClaims,
    organizations: flags.organizations,
    orgCreation: flags.orgCreation,
    emailFrom: flags.emailFrom,
    replyTo: flags.replyTo,
    cookieDomain: flags.cookieDomain,
    name: flags.name,
  };
}

export const appsDeps = (deps: Deps): apps.AppsDeps => ({
  db: deps.db,
  clock: deps.clock,
  keys: deps.keys,
  config: deps.config,
});

export function registerAppCommands(program: Command, cli: Cli): void {
  const app = program.command('app').description('manage applications');
  appSettingOptions(
    app.command('create').requiredOption('--tenant <tenant_id>', 'owning tenant').requiredOption('--name <name>', 'application name'),
  )
    .option('--json', 'print JSON')
    .action((flags: SettingFlags & { tenant: string; name: string; json?: boolean }) =>
      printAnswer(cli, flags.json, (deps) => apps.createApp(appsDeps(deps), flags.tenant, flags.name, toSettings(flags))),
    );
  appSettingOptions(app.command('update').argument('<app_id>'))
    .option('--name <name>', 'new name')
    .option('--clear-domain', 'remove the verified domain')
    .option('--add-allowed-origin <url>', 'add an origin to the allow-list, keeping the others (repeatable)', collect)
    .option('--remove-allowed-origin <url>', 'remove an origin from the allow-list (repeatable)', collect)
    .option('--json', 'print JSON')
    .action(async (appId: string, flags: SettingFlags & { json?: boolean }) => {
      if (flags.clearDomain && flags.domain) throw new UsageError('--domain and --clear-domain exclude each other');
      await printAnswer(cli, flags.json, (deps) => apps.updateApp(appsDeps(deps), appId, toSettings(flags)));
    });
  app
    .command('rotate-keys')
    .argument('<app_id>')
    .description('new signing key, used at once; the old one stays in the JWKS while its tokens live')
    .option('--json', 'print JSON')
    .action((appId: string, flags: { json?: boolean }) => printAnswer(cli, flags.json, (deps) => apps.rotateSigningKey(appsDeps(deps), appId)));
  app
    .command('rotate-secret')
    .argument('<app_id>')
    .description('new secret key; the old one dies at once or after --keep-old-for seconds (printed as old_secret_key_expires_at)')
    .option('--keep-old-for <seconds>', 'grace period for the old secret key', wholeNumber)
    .option('--json', 'print JSON')
    .action((appId: string, flags: { keepOldFor?: number; json?: boolean }) =>
      printAnswer(cli, flags.json, (deps) => apps.rotateSecretKey(appsDeps(deps), appId, flags.keepOldFor ?? 0)),
    );
  app
    .command('list')
    .description('live applications (deleted ones are not listed)')
    .option('--tenant <tenant_id>', 'only the apps of this tenant')
    .option('--json', 'print JSON')
    .action((flags: { tenant?: string; json?: boolean }) =>
      printAnswer(
        cli,
        flags.json,
        (deps) => listing.listApps(deps, flags.tenant),
        ({ apps: list }) => {
          for (const a of list) cli.stdout.write(`${a.app_id}  ${a.tenant_id}  ${a.name}${a.domain ? `  (${a.domain})` : ''}\n`);
        },
      ),
    );
  app
    .command('show')
    .argument('<app_id>')
    .description('the app with its settings as stored (null: the server default applies) and its working secret keys')
    .option('--json', 'print JSON')
    .action((appId: string, flags: { json?: boolean }) => printAnswer(cli, flags.json, (deps) => listing.showApp(appsDeps(deps), appId)));
  deleteOptions(app.command('delete').argument('<app_id>'))
    .description('delete the app and everything of it: marked gone at once (every route refuses it), then its data removed in batches')
    .action(async (appId: string, flags: DeleteFlags) => {
      requireYes(flags, `gatehouse app delete ${appId} --yes`);
      await printAnswer(cli, flags.json, (deps) => deleteAndPurge(cli, deps, () => markAppDeleted(deps, appId), flags));
    });
  registerEmailTemplateCommands(app, cli);
}
