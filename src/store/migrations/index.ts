import { Migrator, PostgresAdapter, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Db } from '../db.js';
import { isUndefinedTable } from '../dialect.js';
import * as m0001 from './0001-foundation.js';
import * as m0002 from './0002-accounts.js';
import * as m0003 from './0003-sso-bots.js';
import * as m0004 from './0004-job-locks.js';
import * as m0005 from './0005-contested-signups.js';
import * as m0010 from './0010-billing.js';
import * as m0007 from './0007-oauth.js';
import * as m0011 from './0011-link-landing.js';
import * as m0008 from './0008-custom-tables.js';
import * as m0006 from './0006-mail-outbox.js';
import * as m0009 from './0009-objects.js';
import * as m0012 from './0012-custom-table-versions.js';
import * as m0013 from './0013-custom-table-check.js';
import * as m0014 from './0014-session-refresh-state.js';
import * as m0015 from './0015-blob-deletion-tokens.js';
import * as m0023 from './0023-upload-liveness.js';
import * as m0018 from './0018-settings.js';
import * as m0016 from './0016-oauth-browser-binding.js';
import * as m0022 from './0022-data-scale.js';
import * as m0017 from './0017-custom-row-cost.js';
import * as m0019 from './0019-user-deletion.js';
import * as m0020 from './0020-app-deletion.js';
import * as m0021 from './0021-account-self-service.js';
import * as m0024 from './0024-second-factors.js';
import * as m0025 from './0025-mail-recipients.js';
import * as m0026 from './0026-factor-lockout.js';
import * as m0027 from './0027-user-counts.js';
import * as m0028 from './0028-sso-nonce.js';
import * as m0029 from './0029-session-auth-time.js';
import * as m0030 from './0030-user-metadata.js';
import * as m0031 from './0031-token-claims.js';
import * as m0032 from './0032-events.js';
import * as m0037 from './0037-oauth-more-providers.js';
import * as m0036 from './0036-user-import.js';
import * as m0035 from './0035-organizations.js';
import * as m0033 from './0033-webhooks.js';
import * as m0038 from './0038-emails.js';
import * as m0046 from './0046-event-methods.js';
import * as m0041 from './0041-cookie-domain.js';
import * as m0034 from './0034-management.js';
import * as m0045 from './0045-tenant-grant-creators.js';
import * as m0048 from './0048-event-retention.js';
import * as m0049 from './0049-node-releases.js';
import * as m0050 from './0050-known-migrations.js';

// A static, ordered list: no file-system discovery, so the built package carries exactly these.
const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-accounts': m0002,
  '0003-sso-bots': m0003,
  '0004-job-locks': m0004,
  '0005-contested-signups': m0005,
  '0010-billing': m0010,
  '0007-oauth': m0007,
  '0011-link-landing': m0011,
  '0008-custom-tables': m0008,
  '0006-mail-outbox': m0006,
  '0009-objects': m0009,
  '0012-custom-table-versions': m0012,
  '0013-custom-table-check': m0013,
  '0014-session-refresh-state': m0014,
  '0015-blob-deletion-tokens': m0015,
  '0023-upload-liveness': m0023,
  '0018-settings': m0018,
  '0016-oauth-browser-binding': m0016,
  '0022-data-scale': m0022,
  '0017-custom-row-cost': m0017,
  '0019-user-deletion': m0019,
  '0020-app-deletion': m0020,
  '0021-account-self-service': m0021,
  '0024-second-factors': m0024,
  '0025-mail-recipients': m0025,
  '0026-factor-lockout': m0026,
  '0027-user-counts': m0027,
  '0028-sso-nonce': m0028,
  '0029-session-auth-time': m0029,
  '0030-user-metadata': m0030,
  '0031-token-claims': m0031,
  '0032-events': m0032,
  '0037-oauth-more-providers': m0037,
  '0036-user-import': m0036,
  '0035-organizations': m0035,
  '0033-webhooks': m0033,
  '0038-emails': m0038,
  '0046-event-methods': m0046,
  '0041-cookie-domain': m0041,
  '0034-management': m0034,
  '0045-tenant-grant-creators': m0045,
  '0048-event-retention': m0048,
  '0049-node-releases': m0049,
  '0050-known-migrations': m0050,
};

/**
 * The migrations marked compatible (`export const compatible = true`): the release before them still starts
 * on a database that has them (docs/upgrading.md, "Compatible migrations"). Each one records its
 * name in migration_compatibility in its own transaction, so releases that do not know it can tell.
 */
export const COMPATIBLE_MIGRATIONS = Object.keys(MIGRATIONS).filter((name) => (MIGRATIONS[name] as { compatible?: unknown }).compatible === true).sort();

/** The migrations that run outside a transaction on PostgreSQL (`export const transaction = false`: CREATE INDEX CONCURRENTLY). */
export const OUTSIDE_TRANSACTION = Object.keys(MIGRATIONS).filter((name) => (MIGRATIONS[name] as { transaction?: unknown }).transaction === false).sort();

function recorded(name: string, migration: Migration): Migration {
  if (!COMPATIBLE_MIGRATIONS.includes(name)) return migration;
  return {
    up: async (db) => {
      await migration.up(db);
      // A compatible migration numbered before 0049 (0048) runs before the table exists on a database made
      // now or migrated from before 0049: the first one to record makes it (0049 makes it only if missing).
      await db.schema.createTable('migration_compatibility').ifNotExists().addColumn('name', 'text', (c) => c.primaryKey()).addColumn('recorded_at', 'text', (c) => c.notNull()).execute();
      await db.insertInto('migration_compatibility').values({ name, recorded_at: new Date().toISOString() }).onConflict((oc) => oc.column('name').doNothing()).execute();
    },
    down: migration.down,
  };
}

/**
 * This build's migrations, and a no-op for each compatible one a later release applied (Kysely refuses a
 * "missing" one). `only`: just these of this build's (the applied ones and the one to run next).
 */
function provider(foreignCompatible: string[], only?: string[]): MigrationProvider {
  const names = Object.keys(MIGRATIONS).filter((name) => !only || only.includes(name));
  const own = Object.fromEntries(names.map((name) => [name, recorded(name, MIGRATIONS[name]!)]));
  return { getMigrations: async () => ({ ...own, ...Object.fromEntries(foreignCompatible.map((name) => [name, { up: async () => {} }])) }) };
}

/** The compatible migrations the database has recorded (none before 0049). */
export async function recordedCompatible(db: Db): Promise<string[]> {
  try {
    return (await db.selectFrom('migration_compatibility').select('name').execute()).map((row) => row.name);
  } catch (error) {
    if (isUndefinedTable(error)) return [];
    throw error;
  }
}

/** Every migration this build knows, in number order: its row in node_releases says so (0050). */
export const KNOWN_MIGRATIONS = Object.keys(MIGRATIONS).sort();

/** The newest migration this build knows (names sort in number order). */
export const LATEST_MIGRATION = KNOWN_MIGRATIONS.at(-1)!;

/** A migration failed (the schema is as it was before the run), or the database is newer than this build. */
export class MigrationError extends Error {}

/** The migrations the database has applied, or undefined when none ever ran there (no migration table). */
export async function appliedMigrations(db: Db): Promise<string[] | undefined> {
  try {
    const rows = await db.selectFrom('kysely_migration' as never).select('name' as never).execute();
    return (rows as { name: string }[]).map((row) => row.name);
  } catch (error) {
    if (isUndefinedTable(error)) return undefined;
    throw error;
  }
}

/**
 * Applies pending migrations in number order, each in a transaction of its own on both databases (store/db.ts
 * tells Kysely that SQLite runs DDL in transactions): on a database that serves, a migration holds its locks
 * only while it runs, and one that fails leaves the schema as that migration found it (those before it stay
 * applied), and the error names it. A new database (no migration yet) is made in one transaction. On
 * PostgreSQL a run takes an advisory lock of its own and Kysely's migrator its lock for each step, so several
 * nodes starting at once apply each migration exactly once; on SQLite each transaction's BEGIN IMMEDIATE does.
 * A migration marked `transaction = false` runs outside a transaction on PostgreSQL (steps.ts).
 * A database that a newer release migrated is refused before anything runs, unless each migration this
 * build does not know is one the database recorded as compatible: then the build starts and ignores them.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const applied = await appliedMigrations(db);
  const foreign = (applied ?? []).filter((name) => !Object.hasOwn(MIGRATIONS, name)).sort();
  const compatible = foreign.length ? await recordedCompatible(db) : [];
  const unknown = foreign.filter((name) => !compatible.includes(name));
  if (unknown.length) throw new MigrationError(`database is at migration ${unknown.at(-1)}, newer than this release (${LATEST_MIGRATION})`);
  if (applied?.length) await recordCompatibleApplied(db, applied);
  if (applied && Object.keys(MIGRATIONS).every((name) => applied.includes(name))) return [];
  // A new database serves nobody yet: made in one transaction, all or nothing (a migration marked
  // `transaction = false` builds its indexes the plain way there: steps.ts).
  if (!applied?.length) {
    const migrator = new Migrator({ db, provider: provider(foreign), allowUnorderedMigrations: true });
    return settled(await migrator.migrateToLatest(), 'none was applied (the schema is as it was)');
  }
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return stepByStep(db, foreign, false);
  // PostgreSQL: one run at a time across nodes (a lock of the whole run, beside Kysely's lock of each step),
  // so the migration this run picks next is still the next when its step takes Kysely's lock.
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${RUN_LOCK})`.execute(conn);
    try {
      return await stepByStep(db, foreign, true);
    } finally {
      await sql`select pg_advisory_unlock(${RUN_LOCK})`.execute(conn);
    }
  });
}

/**
 * Records the compatible migrations the database applied before they were marked so (0048 ran on databases of
 * 0.1.0's main before it was), so an earlier release from 0049 on starts beside them.
 */
async function recordCompatibleApplied(db: Db, applied: string[]): Promise<void> {
  if (!applied.includes('0049-node-releases')) return;
  const recorded = await recordedCompatible(db);
  const missing = COMPATIBLE_MIGRATIONS.filter((name) => applied.includes(name) && !recorded.includes(name));
  if (!missing.length) return;
  const at = new Date().toISOString();
  await db.insertInto('migration_compatibility').values(missing.map((name) => ({ name, recorded_at: at }))).onConflict((oc) => oc.column('name').doNothing()).execute();
}

/** The advisory lock of a migration run on PostgreSQL (Kysely's own lock of a step is another number). */
const RUN_LOCK = 5_504_901;

/**
 * Pending migrations one at a time, in number order (those of parallel features land out of order; each
 * still runs exactly once). Each commits in a transaction of its own; on PostgreSQL one marked
 * `transaction = false` runs outside any (it is written to be run again from its start if cut halfway).
 */
async function stepByStep(db: Db, foreign: string[], postgres: boolean): Promise<string[]> {
  const done: string[] = [];
  for (;;) {
    const applied = (await appliedMigrations(db)) ?? [];
    const next = Object.keys(MIGRATIONS).sort().find((name) => !applied.includes(name));
    if (!next) return done;
    const outside = postgres && OUTSIDE_TRANSACTION.includes(next);
    const only = postgres ? [...applied.filter((name) => Object.hasOwn(MIGRATIONS, name)), next] : undefined;
    const migrator = new Migrator({ db, provider: provider(foreign, only), allowUnorderedMigrations: true, disableTransactions: outside });
    const before = done.length ? ` (applied before it: ${done.join(', ')})` : '';
    const left = outside ? 'it was not recorded as applied (it runs outside a transaction and is run again from its start)' : 'it was not applied (the schema is as it found it)';
    const ran = settled(await migrator.migrateUp(), `${left}${before}`);
    if (!ran.length) return done;
    done.push(...ran);
  }
}

/** The migrations a run applied, or its failure as a MigrationError naming the migration and what it left. */
function settled({ error, results }: MigrationResultSet, left: string): string[] {
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    if (!failed) throw error;
    throw new MigrationError(`migration ${failed} failed, so ${left}: ${reason}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
