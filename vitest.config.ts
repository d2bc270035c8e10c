import { configDefaults, defineConfig } from 'vitest/config';
import { createRequire } from 'node:module';
import { filesFor } from './test/suite.mjs';

// On a PostgreSQL pass test/run.mjs records the repository functions called (test/helpers/repo-calls.cjs);
// the repositories vitest loads from src/ (in-process tests) are wrapped here, as Node's loader wraps dist/.
const { wrapRepoSource } = createRequire(import.meta.url)('./test/helpers/repo-calls.cjs');
const repoCalls = {
  name: 'gatehouse-repo-calls',
  enforce: 'post' as const,
  transform: (code: string, id: string) => wrapRepoSource(id, code),
};

// Which files run: test/suite.mjs, by GATEHOUSE_TEST_SET (test/run.mjs sets it; 'any' when vitest runs on
// its own: every file the database runs) and TEST_DB.
const files = filesFor(process.env.GATEHOUSE_TEST_SET ?? 'any', process.env.TEST_DB ?? 'sqlite');

// Contract tests spawn real servers; two cores run a few files at a time. Two projects: the files of
// test/suite.mjs SHARED run one after another in the same worker, sharing its servers (isolate: false);
// every other file gets a worker of its own.
export default defineConfig({
  plugins: process.env.GATEHOUSE_REPO_CALLS_DIR ? [repoCalls] : [],
  test: {
    // (Include and exclude are the projects' own: vitest would join a project's lists to the root's.)
    projects: [
      { extends: true, test: { name: 'shared', include: files.shared, exclude: [...configDefaults.exclude, ...files.exclude], isolate: false } },
      { extends: true, test: { name: 'own', include: files.include, exclude: [...configDefaults.exclude, ...files.exclude, ...files.shared] } },
    ],
    setupFiles: ['test/helpers/file-times.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 3,
    reporters: ['default'],
    // The built service (dist/src, what the fixtures call in-process: test/helpers/server-deps.ts) loads
    // through Node as it is, like node_modules: transformed by vitest it costs about a second per file.
    server: { deps: { external: [/\/node_modules\//, /\/dist\/src\//] } },
  },
});
