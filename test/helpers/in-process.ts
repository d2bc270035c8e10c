import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/index.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { createLogger } from '../../src/observability/logger.js';
import type { AppsDeps } from '../../src/services/apps/apps.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';
import { createPostgresDatabase, seedSqliteDatabase, TEST_DB } from './db.js';

export interface InProcess {
  deps: Deps;
  /** A temporary directory of its own (the SQLite file lives here), removed by close(). */
  dir: string;
  close(): Promise<void>;
}

/**
 * The service's dependencies in the test process, on a fresh database of the run's kind (TEST_DB),
 * migrated, with the clock the test moves: for jobs that run in-process (clean-up, metering, sweeps).
 * `env` adds configuration; it may use the directory (e.g. a blob store inside it).
 */
export async function openInProcess(clock: Clock, env: (dir: string) => Record<string, string> = () => ({})): Promise<InProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-inproc-'));
  let databaseUrl = `sqlite:${join(dir, 'db.sqlite')}`;
  let dropDb = async () => {};
  if (TEST_DB === 'postgres') {
    const database = await createPostgresDatabase({ migrated: true });
    databaseUrl = database.url;
    dropDb = database.drop;
  } else {
    seedSqliteDatabase(join(dir, 'db.sqlite'));
  }
  const config = loadConfig({ DATABASE_URL: databaseUrl, MASTER_KEY: randomBytes(32).toString('base64'), SMTP_URL: 'log:', BLOB_DELETION_GRACE_SECONDS: '0', ...env(dir) });
  const deps = createDeps(config, createLogger('silent'), { clock });
  await migrateToLatest(deps.db);
  return {
    deps,
    dir,
    close: async () => {
      await deps.close();
      await dropDb();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The set-up of an in-process file: openInProcess(clock, env) before its tests, closed after them. `deps` is
 * filled in once it is open; appsDeps() is what createTenant and createApp take, on the same clock.
 */
export function useInProcess(clock: Clock, env?: (dir: string) => Record<string, string>): { deps: Deps; appsDeps: () => AppsDeps } {
  const deps = {} as Deps;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await openInProcess(clock, env);
    Object.assign(deps, opened.deps);
    close = opened.close;
  });
  afterAll(async () => {
    await close?.();
  });
  return { deps, appsDeps: () => ({ db: deps.db, clock, keys: deps.keys, hashcashEnabled: false }) };
}
