import { defineConfig } from 'vitest/config';

// Contract tests spawn real servers; two cores run a few files at a time.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
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
