import { resolve } from 'node:path';
import { parseCircular, parseDependencyTree, prettyCircular } from 'dpdm';
import { describe, expect, it } from 'vitest';

// Imports go one way (docs/architecture.md): http → services → store | crypto | mail | limits | blobs |
// providers. A cycle is where that breaks first, and an ESM value cycle can hand a module a binding that is
// not initialised yet. Type-only imports count too (as `npx madge --circular` counts them): a type that two
// modules need lives in a third. Reproduce with `npx dpdm --no-tree --no-warning 'src/**/*.ts' 'packages/*/src/**/*.ts'`.
const ROOT = resolve(import.meta.dirname, '../..');

// The graph is the same on both databases: checked in the SQLite pass only (8 s).
describe.skipIf(process.env.TEST_DB === 'postgres')('the import graph', () => {
  it('has no cycle in src/ or packages/', async () => {
    const tree = await parseDependencyTree(['src/**/*.ts', 'packages/*/src/**/*.ts'], {
      context: ROOT,
      cwd: ROOT,
      tsconfig: resolve(ROOT, 'tsconfig.json'),
      transform: false,
    });
    expect(Object.keys(tree).length).toBeGreaterThan(200);
    const cycles = parseCircular(tree);
    expect(cycles, `import cycles:\n${prettyCircular(cycles)}`).toEqual([]);
  });
});
