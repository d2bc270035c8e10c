import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

// packages/server/README.md's ```ts blocks, each its own module, type-check under `tsc --strict` against the
// built package (its dist/*.d.ts, as an installed copy is), beside the Express and Fastify the repository has.
// The directory sits inside the repository so that `express`, `fastify` and their types resolve from node_modules.

const root = resolve(import.meta.dirname, '../..');
let dir: string | undefined;

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The fenced ```ts blocks of a Markdown text, indentation of a list item removed. */
export function tsBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  for (const match of markdown.matchAll(/^([ \t]*)```ts\n([\s\S]*?)^\1```$/gm)) {
    const indent = match[1]!;
    blocks.push(match[2]!.split('\n').map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line)).join('\n'));
  }
  return blocks;
}

it("48 server sdk: the README's TypeScript snippets type-check under tsc --strict (req.auth, request.auth, verifyRequest)", async () => {
  const blocks = tsBlocks(await readFile(join(root, 'packages/server/README.md'), 'utf8'));
  expect(blocks.length).toBeGreaterThanOrEqual(3);
  dir = await mkdtemp(join(root, 'node_modules/.readme-types-'));
  const files = await Promise.all(blocks.map(async (code, i) => {
    const name = `snippet-${i}.ts`;
    await writeFile(join(dir!, name), code);
    return name;
  }));
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true,
      skipLibCheck: false, types: ['node'], lib: ['ES2022', 'DOM'],
      paths: { '@gatehouse/server': [join(root, 'packages/server/dist/index.d.ts')] },
    },
    files,
  };
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const run = await promisify(execFile)(join(root, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], { cwd: dir }).then(
    () => ({ code: 0, output: '' }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
  );
  expect(run.output).toBe('');
  expect(run.code).toBe(0);
}, 120_000);
