import type { Deps } from '../../src/deps.js';

// A test server's database and configuration, opened in the test process the way a `gatehouse` command
// run beside the server opens them: fixtures (tenants, apps) are made by the services the CLI calls,
// without starting a CLI process (about 0.85 s of CPU each).

/** The built modules the fixtures call: what bin/gatehouse.js runs. */
export interface Built {
  config: typeof import('../../src/config/index.js');
  deps: typeof import('../../src/deps.js');
  logger: typeof import('../../src/observability/logger.js');
  masterKeyCheck: typeof import('../../src/services/apps/master-key-check.js');
  apps: typeof import('../../src/services/apps/apps.js');
  cliApps: typeof import('../../src/cli/apps.js');
  cliIo: typeof import('../../src/cli/io.js');
}

const DIST = new URL('../../dist/src/', import.meta.url).href;
let loading: Promise<Built> | undefined;

/**
 * dist/ rather than src/: vitest.config.ts leaves dist/src to Node, so a worker loads these once without
 * transforming them (src/ through vitest costs about a second of CPU more per test file).
 */
export function built(): Promise<Built> {
  const load = (path: string) => import(/* @vite-ignore */ DIST + path);
  loading ??= Promise.all(
    ['config/index.js', 'deps.js', 'observability/logger.js', 'services/apps/master-key-check.js', 'services/apps/apps.js', 'cli/apps.js', 'cli/io.js'].map(load),
  ).then(([config, deps, logger, masterKeyCheck, apps, cliApps, cliIo]) => ({ config, deps, logger, masterKeyCheck, apps, cliApps, cliIo }));
  return loading;
}

/** A server's dependencies, opened on first use; close() ends them (a later get() would open them again). */
export interface ServerDeps {
  get(): Promise<Deps>;
  close(): Promise<void>;
}

/**
 * What cli/shared.ts withDeps opens, for the server whose environment `env()` gives (read at first use)
 * and whose working directory is `dir`: the same configuration, with the SQLite file and the master key
 * file (MASTER_KEY unset) found under `dir` as a command run there finds them, and the master key checked
 * against the database's. No migration runs: the server applied them before it listened.
 */
export function serverDeps(env: () => Record<string, string>, dir: string): ServerDeps {
  let opening: Promise<Deps> | undefined;
  return {
    get: () => (opening ??= open(env(), dir)),
    close: async () => {
      const opened = opening;
      opening = undefined;
      // One that failed to open has nothing to close.
      await (await opened?.catch(() => undefined))?.close();
    },
  };
}

async function open(env: Record<string, string>, dir: string): Promise<Deps> {
  const { config, deps, logger, masterKeyCheck, cliIo } = await built();
  // Relative paths resolved under `dir` as a command run there resolves them (the CLI's own inDirectory).
  const opened = deps.createDeps(cliIo.inDirectory(cliIo.cliOf({ cwd: dir }), config.loadConfig(env)), logger.createLogger('silent'));
  try {
    await masterKeyCheck.checkMasterKey(opened);
    return opened;
  } catch (error) {
    await opened.close();
    throw error;
  }
}
