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

// Contract tests spawn real servers; two cores run a few files at a time.
export default defineConfig({
  plugins: process.env.GATEHOUSE_REPO_CALLS_DIR ? [repoCalls] : [],
  test: {
    include: files.include,
    exclude: [...configDefaults.exclude, ...files.exclude],
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
