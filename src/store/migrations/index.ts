import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from '../db.js';
import * as m0001 from './0001-foundation.js';
import * as m0002 from './0002-accounts.js';
import * as m0003 from './0003-sso-bots.js';
import * as m0004 from './0004-job-locks.js';

// A static, ordered list: no file-system discovery, so the built package carries exactly these.
const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-accounts': m0002,
  '0003-sso-bots': m0003,
  '0004-job-locks': m0004,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/**
 * Applies pending migrations. Kysely's migrator takes a lock in the database, so several nodes
 * starting at once apply each migration exactly once.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
