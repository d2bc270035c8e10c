import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { root, tsBlocks, typeCheck } from '../helpers/readme-types.js';

// packages/server/README.md's ```ts blocks, each its own module, type-check under `tsc --strict` against the
// built package, beside the Express and Fastify the repository has.

let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("48 server sdk: the README's TypeScript snippets type-check under tsc --strict (req.auth, request.auth, verifyRequest)", async () => {
  const blocks = tsBlocks(await readFile(join(root, 'packages/server/README.md'), 'utf8'));
  expect(blocks.length).toBeGreaterThanOrEqual(3);
  const run = await typeCheck(blocks, { '@gatehouse/server': 'packages/server/dist/index.d.ts' });
  dir = run.dir;
  expect(run.output).toBe('');
  expect(run.code).toBe(0);
}, 120_000);
