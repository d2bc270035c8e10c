import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// A source file says one rule (docs/architecture.md): past 300 lines it holds several, and is split along
// the seam between them, into files whose names say what each holds. Tests, the generated OpenAPI types
// and the migrations (one ordered step each, never edited) are not counted.
const ROOT = resolve(import.meta.dirname, '../..');
const MAX_LINES = 300;
const GENERATED = new Set(['packages/api-types/src/openapi.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'migrations' || name === 'node_modules' ? [] : sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.test.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('source files', () => {
  it(`are at most ${MAX_LINES} lines each`, () => {
    const packages = readdirSync(join(ROOT, 'packages')).map((name) => join(ROOT, 'packages', name, 'src'));
    const files = [join(ROOT, 'src'), join(ROOT, 'console/src'), ...packages.filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory())]
      .flatMap(sources)
      .map((path) => relative(ROOT, path))
      .filter((path) => !GENERATED.has(path));
    expect(files.length).toBeGreaterThan(200);
    const long = files.flatMap((path) => {
      const lines = readFileSync(join(ROOT, path), 'utf8').split('\n').length - 1; // as `wc -l` counts them
      return lines > MAX_LINES ? [`${path}: ${lines} lines`] : [];
    });
    expect(long).toEqual([]);
  });
});
