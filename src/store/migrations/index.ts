import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from '../db.js';
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
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/**
 * Applies pending migrations. Kysely's migrator takes a lock in the database, so several nodes
 * starting at once apply each migration exactly once.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  // Migrations of parallel features land out of number order; each still runs exactly once.
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
