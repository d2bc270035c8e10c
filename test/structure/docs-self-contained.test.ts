import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The docs are the whole contract (docs/api.md): a reader of a fresh clone finds every rule in the repository.
// A citation of a document that is not in it (the design notes the project was written from) sends them
// nowhere, so none of these names may appear in the README, docs/, a package's README or a comment in src/.
const ROOT = resolve(import.meta.dirname, '../..');
const OUTSIDE = /\b(interface\.md|contract\.md|ARCHITECTURE\.md|STYLE\.md)\b/;

function files(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path, keep);
    return keep(name) ? [path] : [];
  });
}

function citations(paths: string[]): string[] {
  return paths.flatMap((path) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .flatMap((line, i) => (OUTSIDE.test(line) ? [`${relative(ROOT, path)}:${i + 1}: ${line.trim()}`] : [])),
  );
}

// The same files on both databases: checked in the SQLite pass only.
describe.skipIf(process.env.TEST_DB === 'postgres')('the documentation', () => {
  it('cites no document outside the repository', () => {
    const packages = readdirSync(join(ROOT, 'packages')).map((name) => join(ROOT, 'packages', name, 'README.md'));
    const docs = [
      join(ROOT, 'README.md'),
      ...files(join(ROOT, 'docs'), (name) => /\.(md|json)$/.test(name)),
      ...packages,
      ...files(join(ROOT, 'src'), (name) => name.endsWith('.ts')),
    ];
    expect(docs.length).toBeGreaterThan(100);
    expect(citations(docs)).toEqual([]);
  });
});
