import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

// A package README's ```ts blocks type-checked under `tsc --strict` against the built package (its
// dist/*.d.ts, as an installed copy is). The directory sits inside the repository's node_modules so that
// `express`, `fastify` and their types resolve as they would in a project beside them.

export const root = resolve(import.meta.dirname, '../..');

/** The fenced ```ts blocks of a Markdown text, indentation of a list item removed. */
export function tsBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  for (const match of markdown.matchAll(/^([ \t]*)```ts\n([\s\S]*?)^\1```$/gm)) {
    const indent = match[1]!;
    blocks.push(match[2]!.split('\n').map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line)).join('\n'));
  }
  return blocks;
}

/**
 * Writes each module into a fresh directory and runs tsc --strict over them, `paths` mapping the package
 * name to its built declarations. Answers the directory (the caller removes it) and tsc's exit and output.
 */
export async function typeCheck(modules: string[], paths: Record<string, string>): Promise<{ dir: string; code: number; output: string }> {
  const dir = await mkdtemp(join(root, 'node_modules/.readme-types-'));
  const files = await Promise.all(modules.map(async (code, i) => {
    const name = `snippet-${i}.ts`;
    await writeFile(join(dir, name), code);
    return name;
  }));
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true,
      skipLibCheck: false, types: ['node'], lib: ['ES2022', 'DOM', 'DOM.Iterable'],
      paths: Object.fromEntries(Object.entries(paths).map(([name, file]) => [name, [join(root, file)]])),
    },
    files,
  };
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const run = await promisify(execFile)(join(root, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], { cwd: dir }).then(
    () => ({ code: 0, output: '' }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
  );
  return { dir, ...run };
}
