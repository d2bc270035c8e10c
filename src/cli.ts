import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig, loadDotEnv, type Config } from './config/index.js';
import { createDeps, type Deps } from './deps.js';
import { ApiError } from './errors.js';
import { registerHashcashCommands } from './cli-hashcash.js';
import { createLogger, OWN_BATCH_BYTES, SHARED_BATCH_BYTES } from './logger.js';
import { serveLogDestination } from './log-pretty.js';
import { MAX_WORKERS, parseWorkers, serveWorkers } from './cluster.js';
import * as apps from './services/apps.js';
import { rotateMasterKey } from './services/master-key.js';
import { pruneExpiredRows } from './services/maintenance.js';
import { migrateToLatest } from './store/migrations/index.js';
import { registerBillingCommands } from './cli-billing.js';

/** Exit codes: 0 done, 1 the operation failed, 2 bad usage or configuration. */
class UsageError extends Error {}

function onOff(value: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new InvalidArgumentError('expected on or off');
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}

function usd(value: string): number {
  if (!/^\d+(\.\d{1,2})?$/.test(value)) throw new InvalidArgumentError('expected a USD amount like 1 or 2.50');
  return Number(value);
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function appSettingOptions(command: Command): Command {
  return command
    .option('--domain <host>', 'verified domain (frontend routes resolve the app from Host)')
    .option('--allowed-origin <url>', 'redirect and CORS allow-list entry (repeatable)', collect)
    .addOption(new Option('--verification-method <method>', 'what sign-up emails carry').choices(['code', 'link', 'both']))
    .option('--passwords <on|off>', 'allow password sign-up and sign-in', onOff)
    .option('--hashcash <on|off>', 'require proof-of-work on sign-up (default: HASHCASH_ENABLED)', onOff)
    .option('--hashcash-difficulty <n>', 'leading zero bits, 0-32', wholeNumber)
    .option('--bot-min-usd <amount>', 'smallest donation a bot may register with', usd)
    .option('--link-landing <on|off>', 'emailed links answer a one-button page that POSTs (default off: 302 at once)', onOff)
    .option('--tables-limit-bytes <n>', 'custom-table storage limit of this app (default: TABLES_STORAGE_LIMIT_BYTES)', wholeNumber)
    .option('--objects-limit-bytes <n>', 'object storage of the app in bytes (default OBJECTS_STORAGE_LIMIT_BYTES)', wholeNumber);
}

interface SettingFlags {
  domain?: string;
  clearDomain?: boolean;
  allowedOrigin?: string[];
  verificationMethod?: 'code' | 'link' | 'both';
  passwords?: boolean;
  hashcash?: boolean;
  hashcashDifficulty?: number;
  botMinUsd?: number;
  linkLanding?: boolean;
  tablesLimitBytes?: number;
  objectsLimitBytes?: number;
  name?: string;
}

function toSettings(flags: SettingFlags): apps.AppSettings & { name?: string } {
  return {
    domain: flags.clearDomain ? null : flags.domain,
    allowedOrigins: flags.allowedOrigin,
    verificationMethod: flags.verificationMethod,
    passwordsEnabled: flags.passwords,
    hashcashEnabled: flags.hashcash,
    hashcashDifficulty: flags.hashcashDifficulty,
    botMinUsd: flags.botMinUsd,
    linkLanding: flags.linkLanding,
    tablesLimitBytes: flags.tablesLimitBytes,
    objectsLimitBytes: flags.objectsLimitBytes,
    name: flags.name,
  };
}

function print(value: object, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(JSON.stringify(value) + '\n');
    return;
  }
  for (const [key, field] of Object.entries(value)) {
    const shown = Array.isArray(field) ? field.join(', ') : field !== null && typeof field === 'object' ? JSON.stringify(field) : String(field);
    process.stdout.write(`${key.padEnd(22)} ${shown}\n`);
  }
  if ('secret_key' in value) process.stdout.write('\nThe secret key is shown once: store it now.\n');
}

/** Opens the same configuration and database as the server, applies migrations, runs `work`, closes. */
async function withDeps<T>(work: (deps: Deps) => Promise<T>): Promise<T> {
  const config = readConfig();
  const deps = createDeps(config, createLogger('warn', process.stderr));
  try {
    await migrateToLatest(deps.db);
    return await work(deps);
  } finally {
    await deps.close();
  }
}

function readConfig(): Config {
  loadDotEnv();
  return loadConfig(process.env);
}

const appsDeps = (deps: Deps): apps.AppsDeps => ({
  db: deps.db,
  clock: deps.clock,
  keys: deps.keys,
  hashcashEnabled: deps.config.hashcashEnabled,
});

export function buildProgram(): Command {
  const program = new Command('gatehouse')
    .description('Gatehouse: a self-hostable, multi-tenant authentication service')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('serve')
    .description('run the HTTP service (applies pending migrations first)')
    .option('--workers <n|auto>', 'processes accepting on the port (auto: one per core; more than 1 needs REDIS_URL)', '1')
    .action(async (flags: { workers: string }) => {
      const workers = parseWorkers(flags.workers);
      if (workers === undefined) throw new UsageError(`--workers must be auto or a whole number from 1 to ${MAX_WORKERS}`);
      const config = readConfig();
      // One process writes standard output alone; workers share it, in writes that never interleave.
      const batchBytes = workers === 1 ? OWN_BATCH_BYTES : SHARED_BATCH_BYTES;
      await serveWorkers(config, createLogger(config.logLevel, serveLogDestination(config.database), batchBytes), workers);
    });

  program
    .command('migrate')
    .description('apply pending migrations and exit')
    .action(async () => {
      const applied = await withDeps((deps) => migrateToLatest(deps.db));
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    });

  program
    .command('prune')
    .description('delete dead single-use rows now (the server also does it every 10 minutes, one node at a time)')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      print(await withDeps((deps) => pruneExpiredRows(deps)), flags.json);
    });

  const masterKey = program.command('master-key').description('manage the master key that seals secrets at rest');
  masterKey
    .command('rotate')
    .description('re-seal every sealed secret under MASTER_KEY, opening old ones with MASTER_KEY_PREVIOUS (resumable)')
    .option('--batch-size <n>', 'rows per batch', '100')
    .option('--json', 'print JSON')
    .action(async (flags: { batchSize: string; json?: boolean }) => {
      const batchSize = Number(flags.batchSize);
      if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new UsageError('--batch-size must be a whole number from 1 to 10000');
      print(await withDeps((deps) => rotateMasterKey(deps, { batchSize })), flags.json);
    });

  const tenant = program.command('tenant').description('manage tenants');
  tenant
    .command('create')
    .requiredOption('--name <name>', 'tenant name')
    .option('--json', 'print JSON')
    .action(async (flags: { name: string; json?: boolean }) => {
      print(await withDeps((deps) => apps.createTenant(appsDeps(deps), flags.name)), flags.json);
    });

  const app = program.command('app').description('manage applications');
  appSettingOptions(
    app.command('create').requiredOption('--tenant <tenant_id>', 'owning tenant').requiredOption('--name <name>', 'application name'),
  )
    .option('--json', 'print JSON')
    .action(async (flags: SettingFlags & { tenant: string; name: string; json?: boolean }) => {
      print(await withDeps((deps) => apps.createApp(appsDeps(deps), flags.tenant, flags.name, toSettings(flags))), flags.json);
    });
  appSettingOptions(app.command('update').argument('<app_id>'))
    .option('--name <name>', 'new name')
    .option('--clear-domain', 'remove the verified domain')
    .option('--json', 'print JSON')
    .action(async (appId: string, flags: SettingFlags & { json?: boolean }) => {
      if (flags.clearDomain && flags.domain) throw new UsageError('--domain and --clear-domain exclude each other');
      print(await withDeps((deps) => apps.updateApp(appsDeps(deps), appId, toSettings(flags))), flags.json);
    });
  app
    .command('rotate-keys')
    .argument('<app_id>')
    .description('new signing key, used at once; the old one stays in the JWKS while its tokens live')
    .option('--json', 'print JSON')
    .action(async (appId: string, flags: { json?: boolean }) => {
      print(await withDeps((deps) => apps.rotateSigningKey(appsDeps(deps), appId)), flags.json);
    });
  app
    .command('rotate-secret')
    .argument('<app_id>')
    .description('new secret key; the old one dies at once or after --keep-old-for seconds')
    .option('--keep-old-for <seconds>', 'grace period for the old secret key', wholeNumber)
    .option('--json', 'print JSON')
    .action(async (appId: string, flags: { keepOldFor?: number; json?: boolean }) => {
      print(await withDeps((deps) => apps.rotateSecretKey(appsDeps(deps), appId, flags.keepOldFor ?? 0)), flags.json);
    });
  registerHashcashCommands(program);

  registerBillingCommands(program, { withDeps, print });

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
